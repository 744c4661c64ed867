#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { loadBigQueryConfig, loadConfig } from '../config.js';
import { startQuerygate } from '../server.js';
import { printWelcome } from './welcome.js';

const program = new Command()
  .name('querygate')
  .description('Saved BigQuery-SQL analytics queries over REST and GraphQL, on embedded DuckDB or BigQuery');

program
  .command('serve', { isDefault: true })
  .description('Start the server (with demo logs kept current unless QUERYGATE_DEMO=0)')
  .action(async () => {
    const config = loadConfig();
    const app = await startQuerygate(config);
    printWelcome(app);
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

const bigquery = program
  .command('bigquery')
  .description('Set up and check the BigQuery engine (QUERYGATE_BIGQUERY_*)');

bigquery
  .command('setup')
  .description('Create the UDF in the dataset (idempotent); with --tables also the nine source tables')
  .option('--print', 'print the DDL instead of running it')
  .option('--tables', 'also create the source tables, partitioned by day on timestamp')
  .action(async (options: { print?: boolean; tables?: boolean }) => {
    const { runBigQuerySetup } = await import('./bigquery-commands.js');
    await runBigQuerySetup({
      config: loadBigQueryConfig(),
      printOnly: options.print ?? false,
      tables: options.tables ?? false,
    });
  });

bigquery
  .command('check')
  .description('Dry-run every endpoint: does it compile, how many bytes would it scan')
  .action(async () => {
    const { runBigQueryCheck } = await import('./bigquery-commands.js');
    const { ok } = await runBigQueryCheck({ config: loadBigQueryConfig() });
    if (!ok) process.exitCode = 1;
  });

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
