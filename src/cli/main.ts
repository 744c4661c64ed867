#!/usr/bin/env node
// First: sets NODE_ENV before graphql-js is loaded (see production-mode.ts).
import './production-mode.js';
// First too: sets DuckDB's allocator options before DuckDB is loaded (see duckdb-allocator.ts).
import './duckdb-allocator.js';
import v8 from 'node:v8';
import { Command, InvalidArgumentError } from 'commander';
import { backends } from '../backends/registry.js';
import { type Config, loadConfig } from '../config.js';
import { didYouMean } from '../endpoints/likely-meant.js';
import { querygateVersion } from '../paths.js';
import { startQuerygate } from '../server.js';
import { loadSqlParser } from '../sql/bigquery-ast.js';
import { printWelcome } from './welcome.js';

const program = new Command()
  .name('querygate')
  .description('Saved BigQuery-SQL analytics queries over REST and GraphQL, on embedded DuckDB or BigQuery')
  .version(querygateVersion(), '-V, --version', "print querygate's version");

program
  .command('serve', { isDefault: true })
  .description('Start the server (with demo logs kept current unless QUERYGATE_DEMO=0)')
  .option('--port <port>', 'the port to listen on, 0 for any free one (PORT; default: 4000)', portNumber)
  .option('--host <host>', 'the address to listen on, 0.0.0.0 for every interface (HOST; default: 127.0.0.1)')
  .option(
    '--data-dir <dir>',
    'where the store and the generated key are kept (QUERYGATE_DATA_DIR; default: ./data)',
  )
  .option(
    '--queries <dir>',
    'the saved queries to serve (QUERYGATE_QUERIES_DIR; default: the shipped queries/)',
  )
  .option('--watch', 'reload the queries whenever a file of their directory changes (development)')
  .option(
    '--strict',
    'refuse to start or reload when any endpoint is refused (QUERYGATE_STRICT=1), instead of serving the others',
  )
  .action(async (options: ServeOptions) => {
    // The server logs the configuration's warnings itself, as structured lines beside the others.
    const config = loadConfig(withFlags(options));
    const app = await startQuerygate(config);
    collectStartGarbage();
    printWelcome(app);
    // SIGHUP reloads the queries directory; the log says what changed, or why the old set stays.
    process.on('SIGHUP', () => void app.reload());
    if (options.watch) app.watch();
    // Docker and podman kill the container 10 s after SIGTERM: requests under way get 7 s to
    // finish, the store's last commit and checkpoint the rest.
    const stop = async (signal: NodeJS.Signals) => {
      app.logger.info({ signal }, 'stopping: finishing requests under way, then checkpointing');
      try {
        await app.close({ graceMs: 7_000 });
        app.logger.info('stopped');
        process.exit(0);
      } catch (error) {
        app.logger.error({ err: error }, 'stopping failed');
        process.exit(1);
      }
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('import')
  .description(
    'Bulk-load files into one source: NDJSON log events (optionally .gz) into a log source, or NDJSON, Parquet or CSV (gzip too) as BigQuery exports them into a table source',
  )
  .requiredOption(
    '--source <name>',
    'the source, e.g. cloudflare.logs.prod or a table source of sources.yaml',
  )
  .option('--queries <dir>', 'the queries directory whose sources.yaml declares it (QUERYGATE_QUERIES_DIR)')
  .option('--data-dir <dir>', 'the store (QUERYGATE_DATA_DIR; default: ./data)')
  .option('--format <format>', 'ndjson, parquet or csv (default: from each file name)')
  .option(
    '--replace',
    "a table source: the files' rows replace the table's (a wildcard family's: only the day tables the files hold), as bq load --replace",
  )
  .option('--truncate', 'a table source: empty it (no files)')
  .argument(
    '[files...]',
    'the files; a log source takes one NDJSON file, a table source any number (a file loaded before is skipped)',
  )
  .action(
    async (
      files: string[],
      options: DirectoryOptions & { source: string; format?: string; replace?: boolean; truncate?: boolean },
    ) => {
      const { runImport } = await import('./import-command.js');
      await runImport(commandConfig(options), options.source, files, options.format, loadMode(options));
    },
  );

function loadMode(options: { replace?: boolean; truncate?: boolean }): 'append' | 'replace' | 'truncate' {
  if (options.replace && options.truncate) throw new Error('--replace and --truncate exclude each other');
  return options.replace ? 'replace' : options.truncate ? 'truncate' : 'append';
}

const sources = program.command('sources').description('Declare the sources of a queries directory');

sources
  .command('add-table')
  .description(
    "Declare a table source in <dir>/sources.yaml from BigQuery's schema JSON (bq show --schema --format=prettyjson project:dataset.table)",
  )
  .requiredOption('--queries <dir>', 'the queries directory')
  .requiredOption('--name <name>', 'the source name (its table in the store)')
  .requiredOption('--schema <file>', 'the schema JSON')
  .option(
    '--warehouse-name <name>',
    'its name on BigQuery: project.dataset.table, or a family such as dataset.events_*',
  )
  .option('--table-suffix <column>', 'of a wildcard family: the column holding _TABLE_SUFFIX')
  .option('--description <text>', 'what the table holds')
  .action(
    async (options: {
      queries: string;
      name: string;
      schema: string;
      warehouseName?: string;
      tableSuffix?: string;
      description?: string;
    }) => {
      const { addTableSource } = await import('./sources-commands.js');
      addTableSource({
        queriesDir: options.queries,
        name: options.name,
        schemaFile: options.schema,
        warehouseName: options.warehouseName,
        tableSuffixColumn: options.tableSuffix,
        description: options.description,
      });
      console.log(`Declared table source ${options.name} in ${options.queries}/sources.yaml`);
    },
  );

sources
  .command('drop-table')
  .description(
    "Drop a table source's table from the store (its rows go), for a declaration no schema update reaches; the next start or import creates it under the declared columns",
  )
  .argument('<name>', 'the table source')
  .option('--queries <dir>', 'the queries directory whose sources.yaml declares it (QUERYGATE_QUERIES_DIR)')
  .option('--data-dir <dir>', 'the store (QUERYGATE_DATA_DIR; default: ./data)')
  .option('--yes', 'drop it; without this, only say how many rows it holds')
  .action(async (name: string, options: DirectoryOptions & { yes?: boolean }) => {
    const { dropTableSource } = await import('./sources-commands.js');
    const config = commandConfig(options);
    const { rows, dropped } = await dropTableSource({
      queriesDir: config.queriesDir,
      dataDir: config.dataDir,
      name,
      yes: options.yes === true,
    });
    if (dropped)
      console.log(`Dropped ${name} (${rows} rows); querygate import --source ${name} <files> loads it anew`);
    else if (rows > 0) {
      console.log(`${name} holds ${rows} rows, which dropping loses: run again with --yes to drop it`);
      process.exitCode = 1;
    } else console.log(`The store has no table ${name}`);
  });

const queries = program
  .command('queries')
  .description(
    'Start, check and lock the endpoints of a queries directory (<name>.sql + <name>.yaml, sources.yaml)',
  );

queries
  .command('check')
  .description(
    'Run every check the server makes before serving, without serving (on BigQuery with QUERYGATE_ENGINE=bigquery); exits 1 naming each problem',
  )
  .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
  .action(async (options: { queries?: string }) => {
    const { runQueriesCheck, shapesOn } = await import('./queries-commands.js');
    const config = commandConfig(options);
    const ok = await runQueriesCheck({ queriesDir: config.queriesDir, ...shapesOn(config) });
    if (!ok) process.exitCode = 1;
  });

queries
  .command('lock')
  .description(
    'Write the result shape of each endpoint named, or of every endpoint (from BigQuery with QUERYGATE_ENGINE=bigquery), to <name>.lock.json, accepting changed shapes',
  )
  .argument('[names...]', 'the endpoints to lock (default: all)')
  .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
  .action(async (names: string[], options: { queries?: string }) => {
    const { runQueriesLock, shapesOn } = await import('./queries-commands.js');
    const config = commandConfig(options);
    const ok = await runQueriesLock({ queriesDir: config.queriesDir, only: names, ...shapesOn(config) });
    if (!ok) process.exitCode = 1;
  });

queries
  .command('new')
  .description(
    'Start an endpoint: write <name>.sql (the --sql file, or a stub), a minimal <name>.yaml from its @parameters, and its lock from the columns the engine derives',
  )
  .argument('<name>', 'the dotted endpoint name, e.g. usage.top-paths')
  .option('--sql <file>', 'the SQL to start from, or - for stdin (default: a count over the first source)')
  .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
  .action(async (name: string, options: { queries?: string; sql?: string }) => {
    const { runQueriesNew } = await import('./queries-new.js');
    const { shapesOn } = await import('./queries-commands.js');
    const config = commandConfig(options);
    const ok = await runQueriesNew({
      queriesDir: config.queriesDir,
      name,
      sqlFile: options.sql,
      ...shapesOn(config),
    });
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
  .option('--queries <dir>', 'the queries directory whose sources the SQL reads (QUERYGATE_QUERIES_DIR)')
  .option('--data-dir <dir>', 'the store (QUERYGATE_DATA_DIR; default: ./data)')
  .action(
    async (
      file: string,
      options: DirectoryOptions & { param: string[]; now?: string; explain?: boolean; maxRows: number },
    ) => {
      const { readQueryText, runQueryCommand } = await import('./query-command.js');
      const output = await runQueryCommand(commandConfig(options), readQueryText(file), {
        params: options.param,
        now: options.now,
        explain: options.explain ?? false,
        maxRows: options.maxRows,
      });
      (output.ok ? process.stdout : process.stderr).write(`${output.text}\n`);
      if (output.truncated) {
        process.stderr.write(
          `querygate query: the rows were cut at --max-rows ${options.maxRows}; the query has more\n`,
        );
      }
      if (!output.ok) process.exitCode = 1;
    },
  );

program
  .command('token')
  .description(
    'Sign a token (HS256, with QUERYGATE_JWT_SECRET) that may call only the endpoints named, with parameter values pinned; print it',
  )
  .option(
    '--endpoints <names>',
    'comma-separated endpoint names or globs it may call, e.g. checkout.*,usage.api-counts',
    commaList,
    [],
  )
  .option('--param <name=value>', 'a parameter value the token pins (repeatable)', collect, [])
  .option('--expires-in <duration>', 'how long it lives: 15m, 12h, 30d (every token expires)', '1h')
  .option('--not-before <duration>', 'how long from now before it may be used (default: at once)')
  .option('--ingest', 'it may also ingest log events')
  .option('--subject <sub>', 'who it is for (the sub claim, for your own records)')
  .action(
    async (options: {
      endpoints: string[];
      param: string[];
      expiresIn: string;
      notBefore?: string;
      ingest?: boolean;
      subject?: string;
    }) => {
      const secret = loadConfig().signedTokens?.secret;
      if (secret === undefined)
        throw new Error('querygate token signs with QUERYGATE_JWT_SECRET, which is not set');
      const { signToken } = await import('./token-command.js');
      const token = await signToken(secret, {
        endpoints: options.endpoints,
        params: options.param,
        expiresIn: options.expiresIn,
        notBefore: options.notBefore,
        ingest: options.ingest ?? false,
        subject: options.subject,
      });
      process.stdout.write(`${token}\n`);
    },
  );

// Each backend's own commands (`querygate bigquery setup|check`).
for (const backend of Object.values(backends)) {
  backend.commands?.(program, {
    queriesDirOf: (dir) => commandConfig({ queries: dir }).queriesDir,
  });
}

/**
 * Collects all garbage once the server listens. Start-up (the demo's days of records above all)
 * leaves some 60 MB of dead objects in V8's old space, which V8 collects only once the heap
 * reaches a limit set from its size at start, so a server at rest held them for good. Node has no
 * call for a collection as such; v8.queryObjects runs V8's most thorough one (new space shrunk
 * too: 60 MiB less RSS than --expose-gc's gc() measured) before it counts, and the count is not
 * wanted. It is experimental and says so once on stderr, which this call keeps to itself.
 */
function collectStartGarbage(): void {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
    if (!String(warning).includes('queryObjects')) emitWarning.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    v8.queryObjects(WeakRef, { format: 'count' });
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The flags that stand for a variable of the environment. */
interface DirectoryOptions {
  readonly queries?: string;
  readonly dataDir?: string;
}

interface ServeOptions extends DirectoryOptions {
  readonly port?: number;
  readonly host?: string;
  readonly watch?: boolean;
  readonly strict?: boolean;
}

/** The environment, each flag given taking the place of the variable it stands for. */
function withFlags(options: ServeOptions): NodeJS.ProcessEnv {
  const flags = {
    PORT: options.port?.toString(),
    HOST: options.host,
    QUERYGATE_DATA_DIR: options.dataDir,
    QUERYGATE_QUERIES_DIR: options.queries,
    QUERYGATE_STRICT: options.strict ? '1' : undefined,
  };
  return {
    ...process.env,
    ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)),
  };
}

/** The configuration of a command other than serve, its warnings (a misspelt variable) on stderr. */
function commandConfig(options: DirectoryOptions): Config {
  const config = loadConfig(withFlags(options));
  for (const warning of config.warnings) process.stderr.write(`warning: ${warning}\n`);
  return config;
}

function portNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > 65535)
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return number;
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

function commaList(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ];
}

/**
 * Commander hands a first word that names no command to the default one, `serve`, which then
 * says only "too many arguments for 'serve'": name the command and the one probably meant.
 */
function refuseUnknownCommand(argv: readonly string[]): void {
  const first = argv[2];
  if (first === undefined || first.startsWith('-')) return;
  const known = program.commands.flatMap((command) => [command.name(), ...command.aliases()]);
  if (first === 'help' || known.includes(first)) return;
  program.error(`error: unknown command '${first}'${didYouMean(first, known)}`);
}

refuseUnknownCommand(process.argv);
// Every command reads saved SQL, so the parser is loaded before any runs.
loadSqlParser()
  .then(() => program.parseAsync())
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
