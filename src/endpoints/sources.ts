import { join } from 'node:path';
import { z } from 'zod';
import type { FieldType, ScalarType, StructType } from './field-type.js';
import { type TableSource, tableSourceSchema } from './table-source.js';
import { type UndeclaredParameters, undeclaredParameterPolicies } from './undeclared-parameters.js';
import { readYamlFile } from './yaml-file.js';

/**
 * A log source: one table named after it. `metadata` starts from the declared shape, which fixes
 * the type of every field the saved queries read (so a query prepares on an empty store and the
 * translator knows objects from arrays); ingestion adds further fields as they arrive.
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
  /**
   * Days the embedded store keeps the source's records (Logflare's source TTL); older ones are
   * deleted on a schedule. Absent: QUERYGATE_RETENTION_DAYS applies.
   */
  readonly retentionDays?: number;
  /**
   * An hourly rollup kept beside the records (storage/rollups.ts): counts per hour and per value
   * of these dimensions (`project`, or `metadata.` paths to declared scalar fields), read instead
   * of the records by the queries it answers exactly. Embedded store only.
   */
  readonly rollup?: { readonly dimensions: readonly string[] };
  /** Further keys of the entry (other features' fields), kept as written. */
  readonly [key: string]: unknown;
}

/** The file beside the saved queries that declares the sources they read. */
export const sourcesFileName = 'sources.yaml';

const scalarTypes: Readonly<Record<string, ScalarType>> = {
  STRING: 'VARCHAR',
  INT64: 'BIGINT',
  FLOAT64: 'DOUBLE',
  BOOL: 'BOOLEAN',
};

// A field is a BigQuery scalar type name, a map of fields (a nested record) or `[type]` (an array).
const fieldTypeSchema: z.ZodType<FieldType> = z.lazy(() =>
  z.union([
    z
      .enum(Object.keys(scalarTypes) as [string, ...string[]], {
        message: `must be one of ${Object.keys(scalarTypes).join(', ')}, a map of fields or [TYPE]`,
      })
      .transform((name) => scalarTypes[name] as ScalarType),
    z
      .array(fieldTypeSchema)
      .length(1, 'an array type is written [TYPE], with one element type')
      .transform(([element]) => ({ list: element as FieldType })),
    structSchema,
  ]),
);
const structSchema: z.ZodType<StructType> = z
  .record(z.string().min(1), fieldTypeSchema)
  .transform((fields) => ({ struct: fields }));

const sourceSchema = z
  .looseObject({
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
        'source names are letters, digits, dots, dashes and underscores',
      ),
    id: z
      .uuid('must be a UUID, the source token of POST /api/logs?source=')
      .transform((id) => id.toLowerCase()),
    // Optional in the file: a user's own source rarely has Logs Explorer names.
    aliases: z.array(z.string().min(1)).default([]),
    description: z.string().min(1),
    hasProject: z.boolean(),
    metadata: structSchema,
    retentionDays: z
      .number()
      .int('must be a whole number of days')
      .positive('must be at least 1 (leave it out to keep the default)')
      .optional(),
    rollup: z
      .strictObject({
        dimensions: z
          .array(z.string().min(1))
          .nonempty('lists at least one dimension')
          .refine((dimensions) => new Set(dimensions).size === dimensions.length, 'lists a dimension twice'),
      })
      .optional(),
  })
  .superRefine((source, context) => {
    for (const [i, dimension] of (source.rollup?.dimensions ?? []).entries()) {
      const problem = rollupDimensionProblem(dimension, source.hasProject, source.metadata);
      if (problem) context.addIssue({ code: 'custom', path: ['rollup', 'dimensions', i], message: problem });
    }
  });

/** Why `dimension` cannot be one of a rollup's, or undefined: a top-level string or a declared scalar. */
function rollupDimensionProblem(
  dimension: string,
  hasProject: boolean,
  metadata: StructType,
): string | undefined {
  const [head, ...path] = dimension.split('.');
  if (head !== 'metadata') {
    return path.length === 0 && (head === 'event_message' || (head === 'project' && hasProject))
      ? undefined
      : `'${dimension}' is not a dimension: name project (with hasProject), event_message or a metadata.<path> field`;
  }
  let field: FieldType = metadata;
  for (const name of path) {
    const fields: Readonly<Record<string, FieldType>> =
      typeof field === 'object' && 'struct' in field ? field.struct : {};
    const next = fields[name];
    if (next === undefined) return `'${dimension}' is not a field declared under metadata`;
    field = next;
  }
  return typeof field === 'string'
    ? undefined
    : `'${dimension}' is a record or an array; a dimension is a field of a scalar type`;
}

// An entry is a log source unless it says `kind: table`; each kind is checked by its own schema
// so a problem is reported in that kind's terms, under the entry's index.
const entrySchema = z.unknown().transform((entry, context) => {
  const isTable =
    typeof entry === 'object' && entry !== null && (entry as { kind?: unknown }).kind === 'table';
  const parsed = (isTable ? tableSourceSchema : sourceSchema).safeParse(entry);
  if (parsed.success) return parsed.data as LogSource | TableSource;
  for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom', path: issue.path });
  return z.NEVER;
});

const sourcesFileSchema = z
  .object({
    sources: z.array(entrySchema).nonempty(),
    /** The directory's one setting of its own; see UndeclaredParameters. */
    undeclaredParameters: z.enum(undeclaredParameterPolicies).default('refuse'),
  })
  .refine((file) => new Set(file.sources.map((source) => source.name)).size === file.sources.length, {
    message: 'two sources share a name',
    path: ['sources'],
  })
  .refine(
    (file) => {
      const ids = file.sources.flatMap((source) => (source.id ? [source.id] : []));
      return new Set(ids).size === ids.length;
    },
    {
      message: 'two sources share an id',
      path: ['sources'],
    },
  );

/** The log sources and the table sources of one `sources.yaml`. */
export interface SourceDeclarations {
  readonly logs: readonly LogSource[];
  readonly tables: readonly TableSource[];
  /** What the directory's endpoints do with parameters they do not declare. @default 'refuse' */
  readonly undeclaredParameters: UndeclaredParameters;
}

/**
 * Reads `<dir>/sources.yaml`, both kinds, and the directory's setting beside them; a bad file is
 * refused with one line per problem.
 */
export function readSourceDeclarations(dir: string): SourceDeclarations {
  const file = readYamlFile(join(dir, sourcesFileName), sourcesFileSchema);
  return {
    logs: file.sources.filter((entry): entry is LogSource => entry.kind !== 'table'),
    tables: file.sources.filter((entry): entry is TableSource => entry.kind === 'table'),
    undeclaredParameters: file.undeclaredParameters,
  };
}

/** The log sources of `<dir>/sources.yaml`; a bad file is refused with one line per problem. */
export function readSources(dir: string): readonly LogSource[] {
  return readSourceDeclarations(dir).logs;
}

/** A source by its name or its UUID (any case), as Logflare's clients name one. */
export function findLogSourceByNameOrId(
  reference: string,
  sources: readonly LogSource[],
): LogSource | undefined {
  const id = reference.toLowerCase();
  return sources.find((source) => source.name === reference) ?? sources.find((source) => source.id === id);
}

/** A source by name. */
export function findLogSource(name: string, sources: readonly LogSource[]): LogSource | undefined {
  return sources.find((source) => source.name === name);
}
