import type { StructType } from './field-type.js';

/**
 * The nine Supabase-style log sources. Each is one table named after the source. `metadata`
 * starts from the seed shape below, which fixes the type of every field the saved queries read
 * (so a query binds on an empty store and the translator knows objects from arrays); ingestion
 * adds further fields as they arrive.
 */
export interface LogSource {
  /** Logical name, as written in the saved SQL and in `POST /api/logs?source_name=`. */
  readonly name: string;
  /**
   * Other names queries may use for this source's table: the table names of Supabase Studio's
   * Logs Explorer (its `LogsTableName`), which Logflare maps to these sources.
   */
  readonly aliases: readonly string[];
  readonly description: string;
  /** Whether records carry a top-level `project` column that queries filter on directly. */
  readonly hasProject: boolean;
  readonly metadata: StructType;
}

export const logSources: readonly LogSource[] = [
  {
    name: 'cloudflare.logs.prod',
    aliases: ['edge_logs'],
    description: 'Request logs at the edge',
    hasProject: true,
    metadata: {
      struct: {
        request: { struct: { url: 'VARCHAR', path: 'VARCHAR', method: 'VARCHAR', host: 'VARCHAR' } },
        response: { struct: { status_code: 'BIGINT', origin_time: 'BIGINT' } },
      },
    },
  },
  {
    name: 'postgres.logs',
    aliases: ['postgres_logs'],
    description: 'Database logs',
    hasProject: true,
    metadata: { struct: { host: 'VARCHAR', parsed: { struct: { error_severity: 'VARCHAR' } } } },
  },
  {
    name: 'deno-relay-logs',
    aliases: ['function_edge_logs'],
    description: 'Edge-function relay logs',
    hasProject: false,
    metadata: {
      struct: {
        project_ref: 'VARCHAR',
        function_id: 'VARCHAR',
        execution_time_ms: 'BIGINT',
        deployment_id: 'VARCHAR',
        request: { struct: { method: 'VARCHAR', url: 'VARCHAR', pathname: 'VARCHAR' } },
        response: { struct: { status_code: 'BIGINT' } },
      },
    },
  },
  {
    name: 'deno-subhosting-events',
    aliases: ['function_logs'],
    description: 'Function event logs',
    hasProject: false,
    metadata: {
      struct: { project_ref: 'VARCHAR', function_id: 'VARCHAR', event_type: 'VARCHAR', level: 'VARCHAR' },
    },
  },
  {
    name: 'gotrue.logs.prod',
    aliases: ['auth_logs'],
    description: 'Authentication logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', path: 'VARCHAR', status: 'BIGINT' } },
  },
  {
    name: 'realtime.logs.prod',
    aliases: ['realtime_logs'],
    description: 'Realtime logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', external_id: 'VARCHAR' } },
  },
  {
    name: 'storage.logs.prod.2',
    aliases: ['storage_logs'],
    description: 'Storage logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', tenantId: 'VARCHAR' } },
  },
  {
    name: 'postgREST.logs.prod',
    aliases: ['postgrest_logs'],
    description: 'REST API logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', host: 'VARCHAR' } },
  },
  {
    name: 'pgbouncer.logs.prod',
    aliases: ['pgbouncer_logs'],
    description: 'Connection-pooler logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', host: 'VARCHAR' } },
  },
];

const byName = new Map(logSources.map((source) => [source.name, source]));

export function findLogSource(name: string): LogSource | undefined {
  return byName.get(name);
}
