import { demoDays, demoProjects } from '../demo/sampler.js';
import type { DemoSeedOutcome } from '../demo/seed.js';
import { demoTopUpIntervalMs } from '../demo/traffic.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { exampleOperation } from '../graphql/example-operations.js';
import type { Querygate } from '../server.js';

/**
 * What a newcomer needs after `npm start`: where to click and what to paste. The key itself is
 * printed once at most, in the GraphiQL link, and only on the start that generated it: otherwise
 * the text says where the key is (output ends up in logs that others read: `docker logs`).
 */
export function printWelcome(app: Querygate): void {
  const snapshot = app.registry;
  const [first] = snapshot.endpoints;
  // Each endpoint's first example from its contract, as a REST query string.
  const examples = Object.fromEntries(
    snapshot.endpoints.map((endpoint) => [
      endpoint.name,
      new URLSearchParams(
        Object.entries(endpoint.examples[0] ?? {}).map(([name, value]) => [name, String(value)]),
      ).toString(),
    ]),
  );
  const origin = app.keyOrigin;
  const keyHeader = `-H "X-API-KEY: $QG_KEY"`;
  const lines = [
    '',
    `querygate is listening on ${app.url} (engine: ${app.engine.kind})`,
    ...demoLines(app.demo),
    '',
    ...keyLines(app),
    `  Shell:      QG_KEY=${origin.kind === 'file' ? `$(cat ${shellQuoted(origin.file)})` : "'<a key of QUERYGATE_API_KEYS>'"}  (for the commands below)`,
    `  Endpoints:  curl ${keyHeader} ${app.url}/api/endpoints`,
    `  OpenAPI:    curl ${keyHeader} ${app.url}/openapi.json`,
    `  Health:     ${app.url}/health`,
    '',
    'Try:',
    ...snapshot.endpoints.map(
      (endpoint) =>
        `  curl ${keyHeader} '${app.url}/api/endpoints/${endpoint.name}?${examples[endpoint.name] ?? ''}'`,
    ),
    ...(first
      ? [`  curl ${keyHeader} '${app.url}/api/endpoints/query/${first.id}?${examples[first.name] ?? ''}'`]
      : []),
    ...(first
      ? [
          `  curl ${keyHeader} -H 'content-type: application/json' -d '${graphqlExample(first, snapshot)}' ${app.url}/graphql`,
        ]
      : []),
    '',
  ];
  process.stdout.write(`${lines.filter((line, i) => line !== '' || lines[i - 1] !== '').join('\n')}\n`);
}

/**
 * Where the key is, and GraphiQL's link: with the key in its fragment (read by the page, never
 * sent to the server) when this start generated it, else with a place for it.
 */
function keyLines(app: Querygate): string[] {
  const origin = app.keyOrigin;
  const graphiql = `${app.url}/graphql`;
  const fragmentNote = '(the page reads the key after #: it is never sent to the server)';
  if (origin.kind === 'file' && origin.created) {
    return [
      `  API key:    generated now and kept in ${origin.file} (readable by its owner only)`,
      `  GraphiQL:   ${graphiql}#key=${encodeURIComponent(app.apiKeys[0] ?? '')}`,
      `              ${fragmentNote}; later starts print no key`,
    ];
  }
  return [
    `  API key:    ${origin.kind === 'file' ? `in ${origin.file}` : 'the key in QUERYGATE_API_KEYS'}`,
    `  GraphiQL:   ${graphiql}#key=<the key>`,
    `              ${fragmentNote}`,
  ];
}

/** A path as one shell word. */
function shellQuoted(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** The first endpoint's example operation on one line, as a GraphQL request body. */
function graphqlExample(endpoint: Endpoint, snapshot: Snapshot): string {
  const operation = exampleOperation(endpoint, snapshot.shapes.get(endpoint.name) ?? [])
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .map((line) => line.trim())
    .join(' ')
    .trim();
  // A shell single-quoted string cannot hold a quote; the examples' values have none.
  return JSON.stringify({ query: operation }).replaceAll("'", '');
}

/** What the store's demo traffic is, so that nobody wonders where the rows came from or went. */
function demoLines(demo: DemoSeedOutcome | undefined): string[] {
  const ongoing = `New demo traffic is added every ${demoTopUpIntervalMs / 1000} s while the server runs.`;
  switch (demo?.kind) {
    case 'seeded':
      return [
        `Loaded ${demo.written} demo log events (the last ${demoDays} days) for the projects ${demoProjects.join(', ')}.`,
        ongoing,
      ];
    case 'topped-up':
      return [
        `Topped up the demo logs with ${demo.written} events since ${demo.since.toISOString()} (the last ${demoDays} days at most).`,
        ongoing,
      ];
    case 'not-demo':
      return ['The store holds logs that are not demo traffic: no demo logs were added.'];
    default:
      return [];
  }
}
