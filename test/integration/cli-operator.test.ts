import { type ChildProcess, execFile } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { importStagingDir } from '../../src/server-file.js';
import { outputMatching, runQuerygate, spawnQuerygate, stopChild } from '../helpers/querygate-child.js';

// The operator's side of the CLI, run as a user runs it: `querygate --version`, the bin launcher
// of a clone, `serve` with flags over the environment, the warning for a misspelt variable, and
// `query` and `import` while a server holds the store.

const run = promisify(execFile);
const apiKey = 'cli-operator-test-key-0123456789';

/** `querygate <args>` to completion: its exit code, stdout and stderr. */
const querygate = (args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 0) =>
  runQuerygate(args, { QUERYGATE_DEMO: '0', QUERYGATE_API_KEYS: apiKey, ...env }, timeoutMs);

/** A port free right now on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('querygate --version', () => {
  it("prints package.json's version", async () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const { code, stdout } = await querygate(['--version']);
    expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: manifest.version });
  }, 60_000);

  it("gives DuckDB's allocator its options before DuckDB loads: freed pages handed back after 200 ms, an operator's own options last", async () => {
    // jemalloc prints the options it took at exit when asked (`stats_print`); the operator's
    // `muzzy_decay_ms` comes after the CLI's and wins.
    const { stderr } = await querygate(['--version'], {
      DUCKDB_JE_MALLOC_CONF: 'stats_print:true,muzzy_decay_ms:5',
    });
    expect(stderr).toMatch(/^ {2}opt\.dirty_decay_ms: 200 /m);
    expect(stderr).toMatch(/^ {2}opt\.muzzy_decay_ms: 5 /m);
  }, 60_000);
});

describe('querygate with a command it does not have', () => {
  it('names the command and the one probably meant, and exits 1 without starting a server', async () => {
    const { code, stderr } = await querygate(['improt', 'x.ndjson']);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("error: unknown command 'improt' (did you mean import?)");
  }, 60_000);
});

describe('querygate serve with a data directory it cannot make', () => {
  // Node 20's recursive mkdir never returns under /proc (the other cases: unit/data-directory).
  it('exits 1 at once with one line naming it, and no stack', async () => {
    const dataDir = '/proc/querygate-data';
    const { code, stdout, stderr } = await querygate(
      ['serve', '--port', '0', '--data-dir', dataDir],
      {},
      20_000,
    );
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `the data directory ${dataDir} cannot be made (its file system takes no new directories, ENOENT)\n`,
    });
  }, 30_000);
});

describe("the bin launcher of a clone (package.json's bin, npx querygate)", () => {
  let clone: string;
  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'querygate-launcher-'));
    mkdirSync(join(clone, 'bin'));
    cpSync(join(packageRoot, 'bin/querygate.js'), join(clone, 'bin/querygate.js'));
    writeFileSync(join(clone, 'package.json'), '{"type":"module"}');
  });
  afterAll(() => rmSync(clone, { recursive: true, force: true }));

  it('is what package.json names as the querygate command', () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ querygate: 'bin/querygate.js' });
  });

  it('says in one line to build when dist/ is missing, and exits 1', async () => {
    const launched = await run(process.execPath, [join(clone, 'bin/querygate.js'), '--version']).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(launched).toMatchObject({ code: 1, stdout: '' });
    expect(launched.stderr).toBe(
      `querygate is not built yet: run \`npm run build\` in ${clone}/ first (\`npm start\` builds too)\n`,
    );
  });

  it('runs the built CLI with its arguments once dist/ is there', async () => {
    mkdirSync(join(clone, 'dist/cli'), { recursive: true });
    writeFileSync(join(clone, 'dist/cli/main.js'), 'console.log(JSON.stringify(process.argv.slice(2)));\n');
    chmodSync(join(clone, 'bin/querygate.js'), 0o755);
    const { stdout } = await run(process.execPath, [join(clone, 'bin/querygate.js'), 'serve', '--port', '5']);
    expect(stdout).toBe('["serve","--port","5"]\n');
  });
});

describe('querygate serve with flags, and query and import while it holds the store', () => {
  let dir: string;
  let queries: string;
  let dataDir: string;
  let server: ChildProcess;
  let output = '';
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'querygate-operator-'));
    queries = join(dir, 'queries');
    dataDir = join(dir, 'flag-data');
    cpSync(join(packageRoot, 'examples/queries'), queries, { recursive: true });
    // A table source beside the example's log sources, for files only a table source takes.
    appendFileSync(
      join(queries, 'sources.yaml'),
      `  - kind: table
    name: refunds
    description: Refunds of the shop
    columns:
      - { name: refund_id, type: STRING, mode: REQUIRED }
      - { name: amount_cents, type: INT64, mode: NULLABLE }
      - { name: reason, type: STRING, mode: NULLABLE }
`,
    );
    port = await freePort();
    server = spawnQuerygate({
      // The environment says otherwise everywhere; the flags win.
      queries: join(dir, 'not-these-queries'),
      dataDir: join(dir, 'not-this-data'),
      apiKey,
      env: { PORT: 'not-a-port', HOST: 'not-a-host', QUERYGATE_PROT: '4000' },
      args: ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir, '--queries', queries],
      onOutput: (text) => {
        output += text;
      },
    });
    await outputMatching(server, () => output, /Health: /);
  }, 120_000);

  afterAll(async () => {
    await stopChild(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on --host and --port, keeps its store in --data-dir and serves --queries', async () => {
    expect(output).toContain(`querygate is listening on http://127.0.0.1:${port} `);
    expect(existsSync(join(dataDir, 'querygate.duckdb'))).toBe(true);
    expect(existsSync(join(dir, 'not-this-data'))).toBe(false);
    const listed = await fetch(`http://127.0.0.1:${port}/api/endpoints`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain('checkout.orders');
  });

  it('warns at start of a QUERYGATE_* variable it does not read, naming the one probably meant', () => {
    const warning = output.split('\n').find((line) => line.includes('QUERYGATE_PROT'));
    expect(JSON.parse(warning ?? '{}')).toMatchObject({
      level: 40,
      msg: 'QUERYGATE_PROT is not a querygate variable and is ignored (did you mean PORT?)',
    });
  });

  it('imports NDJSON through the running server, saying so, and queries through it too', async () => {
    const events = [100, 250, 400].map((amount, i) => ({
      timestamp: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
      event_message: `order o${i} paid`,
      project: 'operator',
      metadata: { order_id: `o${i}`, amount_cents: amount, status: 'paid' },
    }));
    const file = join(dir, 'orders.ndjson');
    writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
    const flags = ['--data-dir', dataDir, '--queries', queries];

    const imported = await querygate(['import', '--source', 'checkout.events', ...flags, file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      `querygate import: the store is held by the server at http://127.0.0.1:${port} (pid ${server.pid}); sent the records through its ingest route`,
    );
    expect(imported.stdout).toMatch(/^Imported 3 events into checkout\.events in /);

    const sql = join(dir, 'total.sql');
    writeFileSync(
      sql,
      'select count(*) as n, sum(m.amount_cents) as total from `checkout.events` cross join unnest(metadata) as m where project = @project',
    );
    const queried = await querygate(['query', ...flags, '--param', 'project=operator', sql]);
    expect(queried.code, queried.stderr).toBe(0);
    expect(queried.stderr).toContain(
      `querygate query: the store is held by the server at http://127.0.0.1:${port} (pid ${server.pid}); ran the query through it`,
    );
    // The three events above: 100 + 250 + 400 cents.
    expect(JSON.parse(queried.stdout)).toEqual({ result: [{ n: 3, total: 750 }] });

    // The three events, cut at two: the server says so, and so does the command.
    const listed = join(dir, 'orders.sql');
    writeFileSync(listed, 'select event_message from `checkout.events` where project = @project order by 1');
    const cut = await querygate([
      'query',
      ...flags,
      '--max-rows',
      '2',
      '--param',
      'project=operator',
      listed,
    ]);
    expect(cut.code, cut.stderr).toBe(0);
    expect(JSON.parse(cut.stdout).result).toEqual([
      { event_message: 'order o0 paid' },
      { event_message: 'order o1 paid' },
    ]);
    expect(cut.stderr).toContain('the rows were cut at --max-rows 2');
    expect(queried.stderr).not.toContain('cut at');
  }, 120_000);

  it("explains a query with --explain while the server holds the store, over --queries' own sources", async () => {
    const sql = join(dir, 'refunds.sql');
    writeFileSync(sql, 'select count(*) as n from refunds');
    const explained = await querygate([
      'query',
      '--explain',
      '--data-dir',
      dataDir,
      '--queries',
      queries,
      sql,
    ]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stderr).toContain('the store is held by a running server; explaining over the sources');
    // `refunds` is the table source this directory declares above, which the shipped ones lack.
    expect(explained.stdout).toContain('FROM "refunds"');
  }, 60_000);

  it('answers a query the translator refuses with its error, as the command does on the file', async () => {
    const sql = join(dir, 'bad.sql');
    writeFileSync(sql, 'select soundex(event_message) as s from `checkout.events`');
    const queried = await querygate(['query', '--data-dir', dataDir, '--queries', queries, sql]);
    expect(queried.code).toBe(1);
    expect(JSON.parse(queried.stderr.split('\n').find((line) => line.startsWith('{')) ?? '{}')).toMatchObject(
      {
        error: { code: 'UNSUPPORTED_SQL' },
      },
    );
  }, 60_000);

  it('refuses the store-query route without a key, and to a client relayed by a proxy', async () => {
    const call = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/api/store-query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          sql: 'select 1 as x',
          params: {},
          now: new Date().toISOString(),
          max_rows: 1,
        }),
      });
    expect((await call({})).status).toBe(401);
    const relayed = await call({ 'x-api-key': apiKey, 'x-forwarded-for': '203.0.113.9' });
    expect(relayed.status).toBe(403);
    expect(await relayed.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it('loads Parquet and CSV files of a table source through the running server, in one go, leaving no copy behind', async () => {
    const parquetRows: Array<[string, number, string | null]> = [
      ['r1', 120, 'damaged'],
      ['r2', 80, null],
    ];
    const csvRows: Array<[string, number, string | null]> = [
      ['r3', 35, 'late'],
      ['r4', 15, 'late'],
    ];
    // The files written by plain DuckDB, as a warehouse export would be.
    const writer = await (await DuckDBInstance.create(':memory:')).connect();
    const values = (rows: typeof parquetRows) =>
      rows
        .map(([id, cents, reason]) => `('${id}', ${cents}, ${reason === null ? 'NULL' : `'${reason}'`})`)
        .join(', ');
    const parquet = join(dir, 'refunds 2024-07.parquet');
    const csv = join(dir, 'refunds.csv');
    await writer.run(
      `COPY (SELECT * FROM (VALUES ${values(parquetRows)}) AS t(refund_id, amount_cents, reason)) TO '${parquet}' (FORMAT parquet)`,
    );
    await writer.run(
      `COPY (SELECT * FROM (VALUES ${values(csvRows)}) AS t(refund_id, amount_cents, reason)) TO '${csv}' (HEADER)`,
    );
    writer.closeSync();
    const flags = ['--data-dir', dataDir, '--queries', queries];

    const imported = await querygate(['import', '--source', 'refunds', ...flags, parquet, csv]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      `querygate import: the store is held by the server at http://127.0.0.1:${port} (pid ${server.pid}); handed it the files to load`,
    );
    expect(imported.stdout).toMatch(/^Imported 4 rows into refunds in /);
    expect(readdirSync(importStagingDir(dataDir))).toEqual([]);

    const sql = join(dir, 'refunds.sql');
    writeFileSync(
      sql,
      'select count(*) as n, sum(amount_cents) as total, countif(reason is null) as no_reason from refunds',
    );
    const queried = await querygate(['query', ...flags, sql]);
    expect(queried.code, queried.stderr).toBe(0);
    const all = [...parquetRows, ...csvRows];
    expect(JSON.parse(queried.stdout)).toEqual({
      result: [
        {
          n: all.length,
          total: all.reduce((sum, [, cents]) => sum + cents, 0),
          no_reason: all.filter(([, , reason]) => reason === null).length,
        },
      ],
    });
  }, 120_000);

  it('refuses Parquet for a log source while the server runs, naming the file', async () => {
    const file = join(dir, 'events.parquet');
    writeFileSync(file, 'not really parquet');
    const imported = await querygate([
      'import',
      '--source',
      'checkout.events',
      '--data-dir',
      dataDir,
      '--queries',
      queries,
      file,
    ]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      `checkout.events is a log source: it takes NDJSON, and ${file} is not NDJSON`,
    );
  }, 60_000);

  it('refuses a staged file name that is a path, before reading anything', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/store-import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ source: 'refunds', files: ['../querygate.duckdb'] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'BAD_REQUEST', message: expect.stringContaining('files.0') },
    });
  });
});
