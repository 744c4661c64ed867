import type { Querygate } from '../server.js';
import { demoDays, demoProjects } from '../storage/demo-logs.js';
import type { DemoSeedOutcome } from '../storage/demo-seed.js';
import { demoTopUpIntervalMs } from '../storage/demo-traffic.js';

/** What a newcomer needs after `npm start`: where to click and what to paste. */
export function printWelcome(app: Querygate): void {
  const key = app.apiKeys[0] ?? '';
  const [first] = app.registry.endpoints;
  const examples: Record<string, string> = {
    'logs.all': 'project=default&project_tier=PRO',
    'functions.invocation-stats': 'project=default&interval=1hr',
    'usage.api-counts': 'project=default&interval=minutely',
  };
  const lines = [
    '',
    `querygate is listening on ${app.url} (engine: ${app.engine.kind})`,
    ...demoLines(app.demo),
    '',
    `  API key:    ${key}`,
    `  GraphiQL:   ${app.url}/graphql  (open it in a browser; its Headers tab takes {"X-API-KEY": "${key}"})`,
    `  Endpoints:  curl -H 'X-API-KEY: ${key}' ${app.url}/api/endpoints`,
    `  Health:     ${app.url}/health`,
    '',
    'Try:',
    ...app.registry.endpoints.map(
      (endpoint) =>
        `  curl -H 'X-API-KEY: ${key}' '${app.url}/api/endpoints/${endpoint.name}?${examples[endpoint.name] ?? ''}'`,
    ),
    ...(first
      ? [
          `  curl -H 'X-API-KEY: ${key}' '${app.url}/api/endpoints/query/${first.id}?${examples[first.name] ?? ''}'`,
        ]
      : []),
    `  curl -H 'X-API-KEY: ${key}' -H 'content-type: application/json' -d '${graphqlExample}' ${app.url}/graphql`,
    '',
  ];
  process.stdout.write(`${lines.filter((line, i) => line !== '' || lines[i - 1] !== '').join('\n')}\n`);
}

const graphqlExample = JSON.stringify({
  query: '{ usage { apiCounts(project: "default", interval: MINUTELY) { timestamp totalRestRequests } } }',
});

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
