#!/usr/bin/env node
// First: sets NODE_ENV before graphql-js is loaded (see production-mode.ts).
import './production-mode.js';
import { Command, InvalidArgumentError } from 'commander';
import { backends } from '../backends/registry.js';
import { loadConfig } from '../config.js';
import { startQuerygate } from '../server.js';
import { loadSqlParser } from '../sql/bigquery-ast.js';
import { printWelcome } from './welcome.js';

const program = new Command()
  .name('querygate')
  .description('Saved BigQuery-SQL analytics queries over REST and GraphQL, on embedded DuckDB or BigQuery');

program
  .command('serve', { isDefault: true })
  .description('Start the server (with demo logs kept current unless QUERYGATE_DEMO=0)')
  .option(
    '--queries <dir>',
    'the saved queries to serve (QUERYGATE_QUERIES_DIR; default: the shipped queries/)',
  )
  .option('--watch', 'reload the queries whenever a file of their directory changes (development)')
  .option(
    '--strict',
    'refuse to start or reload when any endpoint is refused (QUERYGATE_STRICT=1), instead of serving the others',
  )
  .action(async (options: { queries?: string; watch?: boolean; strict?: boolean }) => {
    const env = withQueriesDir(options.queries);
    const config = loadConfig(options.strict ? { ...env, QUERYGATE_STRICT: '1' } : env);
    const app = await startQuerygate(config);
    printWelcome(app);
    // SIGHUP reloads the queries directory; the log says what changed, or why the old set stays.
    process.on('SIGHUP', () => void app.reload());
    if (options.watch) app.watch();
    const stop = async () => {
      await app.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('import')
  .description('Bulk-load an NDJSON file (optionally .gz) of log events into one source')
  .requiredOption('--source <name>', 'log source, e.g. cloudflare.logs.prod')
  .argument('<file>', 'NDJSON file, one event per line; .gz is decompressed')
  .action(async (file: string, options: { source: string }) => {
    const { runImport } = await import('./import-command.js');
    await runImport(loadConfig(), options.source, file);
  });

const queries = program
  .command('queries')
  .description('Check and lock a queries directory (<name>.sql + <name>.yaml, sources.yaml)');

queries
  .command('check')
  .description(
    'Run every check the server makes before serving, without serving (on BigQuery with QUERYGATE_ENGINE=bigquery); exits 1 naming each problem',
  )
  .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
  .action(async (options: { queries?: string }) => {
    const { runQueriesCheck, shapesOn } = await import('./queries-commands.js');
    const config = loadConfig(withQueriesDir(options.queries));
    const ok = await runQueriesCheck({ queriesDir: config.queriesDir, ...shapesOn(config) });
    if (!ok) process.exitCode = 1;
  });

queries
  .command('lock')
  .description(
    "Write each endpoint's result shape (from BigQuery with QUERYGATE_ENGINE=bigquery) to <name>.lock.json, accepting changed shapes",
  )
  .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
  .action(async (options: { queries?: string }) => {
    const { runQueriesLock, shapesOn } = await import('./queries-commands.js');
    const config = loadConfig(withQueriesDir(options.queries));
    const ok = await runQueriesLock({ queriesDir: config.queriesDir, ...shapesOn(config) });
    if (!ok) process.exitCode = 1;
  });

program
  .command('query')
  .description(
    'Run one BigQuery-SQL text on the configured engine and store; print {"result": [...]} as REST does (stop the server first on DuckDB)',
  )
  .argument('<file>', 'file holding the SQL, or - to read it from stdin')
  .option('--param <name=value>', 'a value for @name (repeatable; unset parameters are NULL)', collect, [])
  .option('--now <iso>', 'the instant CURRENT_TIMESTAMP() stands for (default: now)')
  .option('--explain', 'print the SQL the engine would run (DuckDB: the translation) instead of running it')
  .option('--max-rows <n>', 'most rows to return', positiveInteger, 10_000)
  .action(
    async (file: string, options: { param: string[]; now?: string; explain?: boolean; maxRows: number }) => {
      const { readQueryText, runQueryCommand } = await import('./query-command.js');
      const output = await runQueryCommand(loadConfig(), readQueryText(file), {
        params: options.param,
        now: options.now,
        explain: options.explain ?? false,
        maxRows: options.maxRows,
      });
      (output.ok ? process.stdout : process.stderr).write(`${output.text}\n`);
      if (!output.ok) process.exitCode = 1;
    },
  );

// Each backend's own commands (`querygate bigquery setup|check`).
for (const backend of Object.values(backends)) {
  backend.commands?.(program, {
    queriesDirOf: (dir) => loadConfig(withQueriesDir(dir)).queriesDir,
  });
}

/** The environment, with `--queries` taking the place of QUERYGATE_QUERIES_DIR where given. */
function withQueriesDir(dir: string | undefined): NodeJS.ProcessEnv {
  return dir === undefined ? process.env : { ...process.env, QUERYGATE_QUERIES_DIR: dir };
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

// Every command reads saved SQL, so the parser is loaded before any runs.
loadSqlParser()
  .then(() => program.parseAsync())
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
