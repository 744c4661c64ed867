import { z } from 'zod';
import { maximumBytesBilledSchema } from '../../endpoints/maximum-bytes-billed.js';

/**
 * What the BigQuery engine, its log sink and its CLI commands need to know. Credentials are not
 * here: the client library finds them through Google's application-default credentials
 * (`GOOGLE_APPLICATION_CREDENTIALS`, `gcloud auth application-default login`, or the metadata
 * server on Google Cloud).
 */
export interface BigQueryConfig {
  /** The project that runs (and pays for) the jobs, and the default project of the tables. */
  readonly projectId: string;
  /** The dataset holding the UDF and, unless mapped elsewhere, the source tables. */
  readonly dataset: string;
  /** Where jobs run, e.g. `US`, `EU`, `europe-west1`. @default the dataset's location, found by BigQuery */
  readonly location: string | undefined;
  /**
   * QUERYGATE_BIGQUERY_TABLES as given: source name → `project.dataset.table` or `dataset.table`.
   * Which sources exist is the served queries directory's business, so the names are checked,
   * and every source's table resolved, by `bigQueryTables` once the sources are known.
   */
  readonly tableMapping: Readonly<Record<string, string>>;
  /** A job still running after this long is cancelled and answered with ENGINE_TIMEOUT. @default 25000 */
  readonly timeoutMs: number;
  /** Bytes a job may bill, as an INT64 string; an endpoint's manifest entry overrides it. @default no cap */
  readonly maximumBytesBilled: string | undefined;
  /** Another API root, e.g. a private endpoint or an emulator. @default https://bigquery.googleapis.com */
  readonly apiEndpoint: string | undefined;
  /**
   * The API root is an emulator (QUERYGATE_BIGQUERY_EMULATOR): requests carry no credentials, and
   * none are looked for. Only with `apiEndpoint`. @default false
   */
  readonly emulator: boolean;
}

// Project ids are 6-30 lower-case letters, digits and hyphens; older ones carry a `domain:` prefix.
const projectIdPattern = /^(?:[a-z0-9][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const datasetPattern = /^[A-Za-z0-9_]{1,1024}$/;
// Table ids may hold letters, marks, numbers, connectors and dashes in any script. No backtick,
// dot or space, so a fully-qualified name always splices into SQL as one backticked identifier.
const tablePattern = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}]{1,1024}$/u;

/**
 * What the BigQuery side needs of a log source: its name and the other names queries may use
 * for its table. The composer hands in the served directory's sources, whose type fits this.
 */
export interface BigQuerySource {
  readonly name: string;
  readonly aliases: readonly string[];
  /** A table source (the team's own table) rather than a log source. */
  readonly kind?: 'log' | 'table' | undefined;
  /**
   * A table source's own name on BigQuery (`project.dataset.table`, `dataset.events_*`): saved
   * SQL that writes it runs as written, never renamed, unless QUERYGATE_BIGQUERY_TABLES maps
   * the source elsewhere.
   */
  readonly warehouseName?: string | undefined;
}

/**
 * The table a source gets when QUERYGATE_BIGQUERY_TABLES does not map it: the logical name in
 * lower case with every character BigQuery's table ids do not take written `_`
 * (`cloudflare.logs.prod` → `cloudflare_logs_prod`).
 */
export function defaultTableName(source: Pick<BigQuerySource, 'name'>): string {
  return source.name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

/**
 * The fully-qualified `project.dataset.table` of every source: the mapped ones as
 * QUERYGATE_BIGQUERY_TABLES says (a `dataset.table` in the configured project), the others
 * `<project>.<dataset>.<defaultTableName>`. A mapping naming a source that `sources` lacks is
 * refused, naming the valid sources: it would otherwise be silently ignored.
 */
export function bigQueryTables(
  config: BigQueryConfig,
  sources: readonly BigQuerySource[],
): Readonly<Record<string, string>> {
  const names = sources.map((source) => source.name);
  const unknown = Object.keys(config.tableMapping).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    const lines = unknown.map(
      (name) =>
        `  QUERYGATE_BIGQUERY_TABLES: '${name}' is not a log source; the sources are ${names.join(', ')}`,
    );
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(
    Object.fromEntries(
      sources.map((source) => {
        const mapped = config.tableMapping[source.name];
        const parts = mapped === undefined ? undefined : splitTableReference(mapped);
        const table = parts
          ? `${parts[0] ?? config.projectId}.${parts[1]}.${parts[2]}`
          : (source.warehouseName ?? `${config.projectId}.${config.dataset}.${defaultTableName(source)}`);
        return [source.name, table];
      }),
    ),
  );
}

/** `logical=project.dataset.table` pairs, from a JSON object or a comma-separated list. */
function readTableMapping(text: string, context: z.RefinementCtx): Record<string, string> {
  const trimmed = text.trim();
  let pairs: [string, unknown][];
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      context.addIssue({ code: 'custom', message: `is not valid JSON: ${(error as Error).message}` });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      context.addIssue({ code: 'custom', message: 'must be a JSON object of source name to table' });
      return z.NEVER;
    }
    pairs = Object.entries(parsed);
  } else {
    pairs = [];
    for (const item of trimmed.split(',')) {
      if (item.trim() === '') continue;
      const separator = item.indexOf('=');
      if (separator < 0) {
        context.addIssue({
          code: 'custom',
          message: `'${item.trim()}' is not of the form source=project.dataset.table`,
        });
        continue;
      }
      pairs.push([item.slice(0, separator).trim(), item.slice(separator + 1).trim()]);
    }
  }
  const mapping: Record<string, string> = {};
  for (const [source, table] of pairs) {
    if (source === '') {
      context.addIssue({
        code: 'custom',
        message: `the table ${JSON.stringify(table)} is mapped to no source name`,
      });
    } else if (typeof table !== 'string' || !isTableReference(table)) {
      context.addIssue({
        code: 'custom',
        message: `the table of '${source}' must be project.dataset.table or dataset.table (got ${JSON.stringify(table)})`,
      });
    } else {
      mapping[source] = table;
    }
  }
  return mapping;
}

function isTableReference(reference: string): boolean {
  const parts = splitTableReference(reference);
  if (!parts) return false;
  const [project, dataset, table] = parts;
  return (
    (project === undefined || projectIdPattern.test(project)) &&
    datasetPattern.test(dataset) &&
    // A wildcard family (`events_*`) for a table source.
    tablePattern.test(table.endsWith('*') ? table.slice(0, -1) : table)
  );
}

/** `[project, dataset, table]` of `project.dataset.table` or `[undefined, dataset, table]` of `dataset.table`. */
function splitTableReference(reference: string): [string | undefined, string, string] | undefined {
  // A domain-scoped project (`example.com:proj`) holds dots itself: split at the last two dots.
  const last = reference.lastIndexOf('.');
  const middle = last > 0 ? reference.lastIndexOf('.', last - 1) : -1;
  if (last < 0 || middle === last - 1) return undefined;
  const table = reference.slice(last + 1);
  if (middle < 0) return [undefined, reference.slice(0, last), table];
  return [reference.slice(0, middle), reference.slice(middle + 1, last), table];
}

/**
 * The BigQuery variables, to be merged into the environment schema of `src/config.ts` when
 * QUERYGATE_ENGINE is `bigquery` (and read by the `querygate bigquery` commands). Every issue is
 * reported under the variable's name.
 */
export const bigQueryEnvironmentSchema = z
  .object({
    QUERYGATE_BIGQUERY_PROJECT: z
      .string({ message: 'is required: the GCP project id that runs the jobs' })
      .regex(projectIdPattern, 'must be a GCP project id such as my-project-123'),
    QUERYGATE_BIGQUERY_DATASET: z
      .string({ message: 'is required: the dataset that holds the UDF and the source tables' })
      .regex(datasetPattern, 'must be a dataset id: letters, digits and underscores'),
    QUERYGATE_BIGQUERY_LOCATION: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be a BigQuery location such as US, EU or europe-west1')
      .optional(),
    QUERYGATE_BIGQUERY_TABLES: z.string().optional().default('').transform(readTableMapping),
    QUERYGATE_BIGQUERY_TIMEOUT_MS: z.coerce
      .number({ message: 'must be a whole number of milliseconds' })
      .int('must be a whole number of milliseconds')
      .positive('must be a positive number of milliseconds')
      .default(25_000),
    QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: maximumBytesBilledSchema.optional(),
    QUERYGATE_BIGQUERY_API_ENDPOINT: z
      .url({
        protocol: /^https?$/,
        message: 'must be an http(s) URL such as https://bigquery.googleapis.com',
      })
      .optional(),
    QUERYGATE_BIGQUERY_EMULATOR: z
      .enum(['1', 'true', '0', 'false'], { message: 'must be true or false' })
      .optional()
      .transform((value) => value === '1' || value === 'true'),
  })
  // Without an endpoint the requests would go, credential-less, to Google's API.
  .refine((env) => !env.QUERYGATE_BIGQUERY_EMULATOR || env.QUERYGATE_BIGQUERY_API_ENDPOINT !== undefined, {
    message: "needs QUERYGATE_BIGQUERY_API_ENDPOINT, the emulator's URL such as http://127.0.0.1:9050",
    path: ['QUERYGATE_BIGQUERY_EMULATOR'],
  })
  .transform(
    (env): BigQueryConfig => ({
      projectId: env.QUERYGATE_BIGQUERY_PROJECT,
      dataset: env.QUERYGATE_BIGQUERY_DATASET,
      location: env.QUERYGATE_BIGQUERY_LOCATION,
      tableMapping: Object.freeze(env.QUERYGATE_BIGQUERY_TABLES),
      timeoutMs: env.QUERYGATE_BIGQUERY_TIMEOUT_MS,
      maximumBytesBilled: env.QUERYGATE_BIGQUERY_MAX_BYTES_BILLED,
      apiEndpoint: env.QUERYGATE_BIGQUERY_API_ENDPOINT?.replace(/\/+$/, ''),
      emulator: env.QUERYGATE_BIGQUERY_EMULATOR,
    }),
  );

/** Parses the BigQuery variables alone; each bad variable gets one line naming it, as loadConfig does. */
export function parseBigQueryEnvironment(environment: NodeJS.ProcessEnv): Readonly<BigQueryConfig> {
  const parsed = bigQueryEnvironmentSchema.safeParse(environment);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}

/** The fully-qualified name of a routine (the UDFs) in the configured dataset. */
export function routineName(config: BigQueryConfig, routine: string): string {
  return `${config.projectId}.${config.dataset}.${routine}`;
}

/** `[project, dataset, table]` of `project.dataset.table`, or of `dataset.table` in the configured project. */
export function tablePartsIn(
  config: BigQueryConfig,
  reference: string,
): [project: string, dataset: string, table: string] {
  const parts = splitTableReference(reference);
  if (!parts) throw new Error(`Not a table name: ${reference}`);
  return [parts[0] ?? config.projectId, parts[1], parts[2]];
}

/** `[project, dataset, table]` of a fully-qualified table name from `bigQueryTables`. */
export function tableParts(qualified: string): [project: string, dataset: string, table: string] {
  const parts = splitTableReference(qualified);
  if (!parts || parts[0] === undefined) throw new Error(`Not a fully-qualified table: ${qualified}`);
  return [parts[0], parts[1], parts[2]];
}
