import type { Querygate } from '../server.js';

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
    app.demoEvents > 0
      ? `Loaded ${app.demoEvents} demo log events for the projects default, acme-prod, acme-staging.`
      : '',
    '',
    `  API key:    ${key}`,
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
    '',
  ];
  process.stdout.write(`${lines.filter((line, i) => line !== '' || lines[i - 1] !== '').join('\n')}\n`);
}
