import type { Command } from 'commander';
import type { CommandContext } from '../backend.js';
import { parseBigQueryEnvironment } from './config.js';

/** `querygate bigquery setup|check`: its settings are read whatever the engine served. */
export function registerBigQueryCommands(program: Command, context: CommandContext): void {
  const bigquery = program
    .command('bigquery')
    .description('Set up and check the BigQuery engine (QUERYGATE_BIGQUERY_*)');

  bigquery
    .command('setup')
    .description(
      "Create the UDF in the dataset (idempotent); with --tables also the queries directory's source tables",
    )
    .option('--print', 'print the DDL instead of running it')
    .option('--tables', 'also create the source tables, partitioned by day on timestamp')
    .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
    .action(async (options: { print?: boolean; tables?: boolean; queries?: string }) => {
      const { runBigQuerySetup } = await import('./commands.js');
      await runBigQuerySetup({
        config: parseBigQueryEnvironment(process.env),
        queriesDir: context.queriesDirOf(options.queries),
        printOnly: options.print ?? false,
        tables: options.tables ?? false,
      });
    });

  bigquery
    .command('check')
    .description('Dry-run every endpoint: does it compile, how many bytes would it scan')
    .option('--queries <dir>', 'the queries directory (QUERYGATE_QUERIES_DIR; default: the shipped queries/)')
    .action(async (options: { queries?: string }) => {
      const { runBigQueryCheck } = await import('./commands.js');
      const { ok } = await runBigQueryCheck({
        config: parseBigQueryEnvironment(process.env),
        queriesDir: context.queriesDirOf(options.queries),
      });
      if (!ok) process.exitCode = 1;
    });
}
