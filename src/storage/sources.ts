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
  /** Fixed UUID, Logflare's source token: `POST /api/logs?source=<id>` names the source by it. */
  readonly id: string;
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
    id: '0d4f6d8e-5b0a-4a57-9c53-0f3f1c8e2a01',
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
    id: '3c7e2b51-9a0d-4f4e-8b1e-6a2d9e0c4b02',
    aliases: ['postgres_logs'],
    description: 'Database logs',
    hasProject: true,
    metadata: { struct: { host: 'VARCHAR', parsed: { struct: { error_severity: 'VARCHAR' } } } },
  },
  {
    name: 'deno-relay-logs',
    id: '7a1c5e93-2f6b-4d8a-a0c4-5e9b1d3f6c03',
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
    id: 'b58d2a17-6e3c-4b9f-8d25-1c7a4e0f9d04',
    aliases: ['function_logs'],
    description: 'Function event logs',
    hasProject: false,
    metadata: {
      struct: { project_ref: 'VARCHAR', function_id: 'VARCHAR', event_type: 'VARCHAR', level: 'VARCHAR' },
    },
  },
  {
    name: 'gotrue.logs.prod',
    id: 'e2a94c6b-0d7f-4c31-9b8e-3f5d2a1c7e05',
    aliases: ['auth_logs'],
    description: 'Authentication logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', path: 'VARCHAR', status: 'BIGINT' } },
  },
  {
    name: 'realtime.logs.prod',
    id: '4f8b1d3a-7c2e-4e6a-b9d0-8a3c5f2e1b06',
    aliases: ['realtime_logs'],
    description: 'Realtime logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', external_id: 'VARCHAR' } },
  },
  {
    name: 'storage.logs.prod.2',
    id: '91c6e4f2-3b8a-4d5c-8e7f-2a0b9d6c4a07',
    aliases: ['storage_logs'],
    description: 'Storage logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', level: 'VARCHAR', tenantId: 'VARCHAR' } },
  },
  {
    name: 'postgREST.logs.prod',
    id: 'c3d7a5e1-8f4b-4a2c-9d6e-7b1f0a3e5c08',
    aliases: ['postgrest_logs'],
    description: 'REST API logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', host: 'VARCHAR' } },
  },
  {
    name: 'pgbouncer.logs.prod',
    id: '6e2f9b4d-1a5c-4f7e-a3b8-9c0d2e6f1a09',
    aliases: ['pgbouncer_logs'],
    description: 'Connection-pooler logs',
    hasProject: true,
    metadata: { struct: { project: 'VARCHAR', host: 'VARCHAR' } },
  },
];

const byName = new Map(logSources.map((source) => [source.name, source]));
const byId = new Map(logSources.map((source) => [source.id, source]));

export function findLogSource(name: string): LogSource | undefined {
  return byName.get(name);
}

/** A source by its name or its UUID (any case), as Logflare's clients name one. */
export function findLogSourceByNameOrId(reference: string): LogSource | undefined {
  return byName.get(reference) ?? byId.get(reference.toLowerCase());
}
