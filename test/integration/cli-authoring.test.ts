import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/cli/import-command.js';
import { runQueriesCheck, runQueriesLock } from '../../src/cli/queries-commands.js';
import { runQueriesNew } from '../../src/cli/queries-new.js';
import { signToken } from '../../src/cli/token-command.js';
import { loadConfig } from '../../src/config.js';
import { queriesDir as shippedQueriesDir } from '../../src/paths.js';
import { loadSqlParser } from '../../src/sql/bigquery-ast.js';
import { runQuerygate } from '../helpers/querygate-child.js';
import { type QuerygateUnderTest, startQuerygateUnderTest } from '../helpers/querygate-server.js';

// The authoring loop as README's "Authoring a query" walks it: `queries new` from a SQL file,
// the endpoint served at once from its minimal contract by the real server, `queries lock` of one
// endpoint, problems named at their file, line and column, and a "did you mean" for a name.

const topPathsSql = [
  'select r.path, count(*) as hits',
  'from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r',
  'where project = @project',
  'group by r.path',
].join('\n');

let dir: string;
const scratch: string[] = [];
let newOutput: { code: number; stdout: string };

/** A directory of the shipped sources alone. */
function sourcesDir(): string {
  const made = mkdtempSync(join(tmpdir(), 'querygate-authoring-'));
  scratch.push(made);
  copyFileSync(join(shippedQueriesDir, 'sources.yaml'), join(made, 'sources.yaml'));
  return made;
}

/** What a command printed, line by line. */
function printed(): { lines: string[]; print: (line: string) => void } {
  const lines: string[] = [];
  return { lines, print: (line) => lines.push(line) };
}

beforeAll(async () => {
  await loadSqlParser();
  dir = sourcesDir();
  const sqlFile = join(dir, 'draft.txt');
  writeFileSync(sqlFile, topPathsSql);
  // Through the command line, as an author types it.
  newOutput = await runQuerygate(['queries', 'new', 'usage.top-paths', '--sql', sqlFile, '--queries', dir], {
    QUERYGATE_API_KEYS: 'k'.repeat(16),
  });
}, 60_000);

afterAll(() => {
  for (const made of scratch) rmSync(made, { recursive: true, force: true });
});

describe('querygate queries new', () => {
  it('writes the SQL, a contract of its name and parameters, and the lock of the columns the engine derives', () => {
    expect(newOutput.code).toBe(0);
    expect(readFileSync(join(dir, 'usage.top-paths.sql'), 'utf8')).toBe(`${topPathsSql}\n`);
    const contract = readFileSync(join(dir, 'usage.top-paths.yaml'), 'utf8');
    const keys = contract.split('\n').filter((line) => line !== '' && !line.trimStart().startsWith('#'));
    expect(keys).toEqual([
      'name: usage.top-paths',
      'parameters:',
      '  - name: project',
      '    type: text # or integer, number, boolean, timestamp',
      '    required: true',
    ]);
    // The engine's types, for the author to describe: request.path is declared STRING in
    // sources.yaml, and COUNT(*) is INT64 in BigQuery.
    expect(contract).toContain('#   path: { description: "...", nullable: false } # STRING');
    expect(contract).toContain('#   hits: { description: "...", nullable: false } # INT64');
    expect(JSON.parse(readFileSync(join(dir, 'usage.top-paths.lock.json'), 'utf8'))).toEqual({
      endpoint: 'usage.top-paths',
      columns: [
        { name: 'path', type: 'STRING', nullable: true },
        { name: 'hits', type: 'INT64', nullable: true },
      ],
    });
    expect(newOutput.stdout).toContain(`Wrote ${join(dir, 'usage.top-paths.lock.json')}`);
  });

  it('refuses to overwrite an endpoint that is there, and a name that is not dotted', async () => {
    const { lines, print } = printed();
    expect(await runQueriesNew({ queriesDir: dir, name: 'usage.top-paths', print })).toBe(false);
    expect(lines[0]).toContain('already there; edit it, then run querygate queries lock usage.top-paths');
    const name = printed();
    expect(await runQueriesNew({ queriesDir: dir, name: 'toppaths', print: name.print })).toBe(false);
    expect(name.lines).toEqual(['✗ toppaths: endpoint names are dotted, e.g. logs.all']);
  });

  it('starts from a stub over the first source without --sql, which passes every check', async () => {
    const own = sourcesDir();
    expect(await runQueriesNew({ queriesDir: own, name: 'demo.stub', print: () => {} })).toBe(true);
    expect(readFileSync(join(own, 'demo.stub.sql'), 'utf8')).toContain('FROM `cloudflare.logs.prod`');
    expect(await runQueriesCheck({ queriesDir: own, print: () => {} })).toBe(true);
  });

  it('keeps a SQL that does not translate and names its line and column in the .sql file', async () => {
    const own = sourcesDir();
    const draft = join(own, 'draft.txt');
    writeFileSync(draft, 'select id\nfrom edge_logs\nwhere sha512(id) = b""');
    const { lines, print } = printed();
    expect(await runQueriesNew({ queriesDir: own, name: 'demo.hashed', sqlFile: draft, print })).toBe(false);
    // SHA512 has no DuckDB rule; it starts at line 3, column 7.
    expect(lines).toContainEqual(expect.stringMatching(/^✗ .*demo\.hashed\.sql:3:7: .*SHA512/));
    expect(lines.at(-1)).toBe(
      `Fix ${join(own, 'demo.hashed.sql')} (or ${join(own, 'demo.hashed.yaml')}), then run querygate queries lock demo.hashed`,
    );
  });
});

describe('querygate queries lock NAME', () => {
  let own: string;
  beforeAll(async () => {
    own = sourcesDir();
    cpSync(dir, own, { recursive: true });
    await runQueriesNew({ queriesDir: own, name: 'demo.stub', print: () => {} });
  });

  it('locks only the endpoints named, leaving the others as they are', async () => {
    const topLock = join(own, 'usage.top-paths.lock.json');
    writeFileSync(
      join(own, 'usage.top-paths.sql'),
      topPathsSql.replace('count(*) as hits', 'count(*) as hits, 1 as one'),
    );
    writeFileSync(join(own, 'demo.stub.sql'), 'SELECT COUNT(*) AS total FROM `cloudflare.logs.prod`');
    const before = readFileSync(topLock, 'utf8');
    const { lines, print } = printed();
    expect(await runQueriesLock({ queriesDir: own, only: ['demo.stub'], print })).toBe(true);
    expect(lines).toEqual([`Locked ${join(own, 'demo.stub.lock.json')}`]);
    expect(JSON.parse(readFileSync(join(own, 'demo.stub.lock.json'), 'utf8')).columns).toEqual([
      { name: 'total', type: 'INT64', nullable: true },
    ]);
    expect(readFileSync(topLock, 'utf8')).toBe(before);
  });

  it('refuses a name the directory does not hold, naming the one most likely meant', async () => {
    const { lines, print } = printed();
    expect(await runQueriesLock({ queriesDir: own, only: ['usage.top-path'], print })).toBe(false);
    expect(lines).toEqual(['✗ No endpoint named usage.top-path here (did you mean usage.top-paths?)']);
  });
});

describe('querygate import of a misspelt source', () => {
  it('is refused before any file is read, naming the source meant', async () => {
    const config = loadConfig({
      QUERYGATE_QUERIES_DIR: dir,
      QUERYGATE_DATA_DIR: sourcesDir(),
      QUERYGATE_API_KEYS: 'k'.repeat(16),
    });
    await expect(
      runImport(config, 'cloudflare.logs.prd', [join(dir, 'no-such-file.ndjson')]),
    ).rejects.toThrow(
      `cloudflare.logs.prd is no source of ${join(dir, 'sources.yaml')} (did you mean cloudflare.logs.prod?)`,
    );
  });
});

describe('problems named at their file, line and column (queries check)', () => {
  it('names the line and column of a YAML problem in a contract and in sources.yaml', async () => {
    const own = sourcesDir();
    cpSync(dir, own, { recursive: true });
    const contract = [
      'name: usage.top-paths',
      'maxRows: lots',
      'parameters:',
      '  - name: project',
      '    required: maybe',
    ];
    writeFileSync(join(own, 'usage.top-paths.yaml'), contract.join('\n'));
    const { lines, print } = printed();
    expect(await runQueriesCheck({ queriesDir: own, print })).toBe(false);
    // `lots` is at line 2, column 10; `maybe` at line 5, column 15.
    expect(lines).toContain(
      `✗ ${join(own, 'usage.top-paths.yaml')}:2:10: maxRows: Invalid input: expected number, received string`,
    );
    expect(lines).toContain(
      `✗ ${join(own, 'usage.top-paths.yaml')}:5:15: parameters[0].required: Invalid input: expected boolean, received string`,
    );

    const sources = readFileSync(join(own, 'sources.yaml'), 'utf8').split('\n');
    const at = sources.findIndex((line) => line.startsWith('sources:'));
    // A sequence item indented less than the ones before it: a YAML syntax error.
    sources.splice(at + 2, 0, '- oops');
    writeFileSync(join(own, 'sources.yaml'), sources.join('\n'));
    const broken = printed();
    expect(await runQueriesCheck({ queriesDir: own, print: broken.print })).toBe(false);
    expect(broken.lines[0]).toMatch(new RegExp(`^✗ ${join(own, 'sources.yaml')}:${at + 3}:1: `));
  });
});

describe('the endpoint served from its minimal contract', () => {
  let server: QuerygateUnderTest;
  const secret = 's'.repeat(40);
  const now = new Date('2026-03-10T12:00:00Z');
  const events = [
    ['/a', 'p1'],
    ['/a', 'p1'],
    ['/b', 'p1'],
    ['/a', 'p2'],
  ].map(([path, project], i) => ({
    id: `e${i}`,
    timestamp: new Date(now.getTime() - (i + 1) * 60_000).toISOString(),
    event_message: `GET ${path}`,
    project,
    metadata: { request: { path } },
  }));

  beforeAll(async () => {
    server = await startQuerygateUnderTest({
      now,
      environment: { QUERYGATE_QUERIES_DIR: dir, QUERYGATE_JWT_SECRET: secret },
    });
    expect((await server.ingest('cloudflare.logs.prod', events)).status).toBe(200);
  });
  afterAll(() => server?.close());

  it("answers the SQL's rows by name and by the id derived from the name", async () => {
    // p1 has two /a and one /b.
    const expected = [
      { path: '/a', hits: 2 },
      { path: '/b', hits: 1 },
    ];
    const byName = await server.get('/api/endpoints/usage.top-paths', { project: 'p1' });
    expect(byName.status).toBe(200);
    const rows = (byName.body as { result: { path: string; hits: number }[] }).result;
    expect([...rows].sort((x, y) => x.path.localeCompare(y.path))).toEqual(expected);
    const listed = (await server.get('/api/endpoints')).body as { result: { name: string; id: string }[] };
    const id = listed.result.find((endpoint) => endpoint.name === 'usage.top-paths')?.id as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const byId = await server.get(`/api/endpoints/query/${id}`, { project: 'p1' });
    expect(byId.status).toBe(200);
  });

  it('refuses a call without the derived required parameter, naming it', async () => {
    const missing = await server.get('/api/endpoints/usage.top-paths');
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('project');
  });

  it('describes it in OpenAPI and GraphQL without descriptions written', async () => {
    const document = (await server.get('/openapi.json')).body as {
      paths: Record<
        string,
        { get?: { description?: string; parameters?: { name: string; description?: string }[] } }
      >;
    };
    const operation = document.paths['/api/endpoints/usage.top-paths']?.get;
    expect(operation?.description).toBe('The rows of saved query usage.top-paths.');
    expect(operation?.parameters?.find((parameter) => parameter.name === 'project')?.description).toBe(
      'The @project of the SQL.',
    );
    const graphql = await server.request('POST', '/graphql', {
      body: JSON.stringify({ query: /* GraphQL */ '{ usage { topPaths(project: "p2") { path hits } } }' }),
    });
    expect(graphql.body).toEqual({ data: { usage: { topPaths: [{ path: '/a', hits: '1' }] } } });
  });

  it('answers a misspelt endpoint name with a 404 naming the endpoint meant', async () => {
    const misspelt = await server.get('/api/endpoints/usage.top-path', { project: 'p1' });
    expect(misspelt.status).toBe(404);
    expect(misspelt.body).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: "No endpoint named 'usage.top-path' (did you mean usage.top-paths?)",
      },
    });
  });

  it('never offers a signed token an endpoint outside its grant', async () => {
    const token = await signToken(secret, {
      endpoints: ['logs.*'],
      params: [],
      expiresIn: '1h',
      ingest: false,
    });
    // The same name with the API key is offered usage.top-paths (the test above).
    const withToken = await server.request('GET', '/api/endpoints/usage.top-path', {
      apiKey: null,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(withToken.status).toBe(404);
    expect(withToken.text).not.toContain('top-paths');
  });

  it('answers an ingest into a misspelt source naming the source meant', async () => {
    const misspelt = await server.ingest('cloudflare.logs.prd', events.slice(0, 1));
    expect(misspelt.status).toBe(400);
    expect(misspelt.text).toContain(
      "names no source: 'cloudflare.logs.prd' (did you mean cloudflare.logs.prod?)",
    );
  });
});
