import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { maximumBytesBilledSchema } from '../engines/bigquery-config.js';

const parameterSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'parameter names are lower_snake_case'),
    required: z.boolean(),
    description: z.string().min(1),
    /** How a value is checked: free text, an ISO 8601 timestamp, or an RE2 pattern. */
    format: z.enum(['text', 'iso8601', 're2']).default('text'),
    /** The declared values; with `otherValues: 'fallback'` others are accepted (the SQL has an ELSE). */
    values: z.array(z.string()).nonempty().optional(),
    otherValues: z.enum(['reject', 'fallback']).default('reject'),
    /**
     * With `otherValues: 'fallback'`: the declared value that every other value behaves as (the
     * one the SQL's ELSE means). Other values are bound as this one, so they share its cache entry.
     */
    fallback: z.string().optional(),
  })
  .refine(
    (parameter) =>
      parameter.otherValues !== 'fallback' ||
      (parameter.fallback !== undefined && (parameter.values ?? []).includes(parameter.fallback)),
    {
      message: "otherValues 'fallback' needs `values` and a `fallback` that is one of them",
      path: ['fallback'],
    },
  );

const endpointSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, 'endpoint names are dotted, e.g. logs.all'),
  id: z.uuid(),
  description: z.string().min(1),
  maxRows: z.number().int().positive(),
  /** 0 turns caching off. */
  cacheSeconds: z.number().int().nonnegative(),
  warmSeconds: z.number().int().positive().nullable(),
  sandboxed: z.boolean(),
  /** BigQuery only: bytes a job may bill, overriding the global cap. */
  maximumBytesBilled: maximumBytesBilledSchema.optional(),
  parameters: z.array(parameterSchema),
});

const manifestSchema = z.object({ endpoints: z.array(endpointSchema).nonempty() });

export type ParameterContract = z.infer<typeof parameterSchema>;
export type EndpointManifestEntry = z.infer<typeof endpointSchema>;

/** Validates a manifest's parsed JSON; the error names `source` and zod's path to each problem. */
export function parseManifest(manifest: unknown, source: string): EndpointManifestEntry[] {
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success) throw new Error(`${source} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data.endpoints;
}

/** Reads and validates `queries/manifest.json`; a bad manifest stops start-up. */
export function readManifest(queriesDir: string): EndpointManifestEntry[] {
  const file = join(queriesDir, 'manifest.json');
  return parseManifest(JSON.parse(readFileSync(file, 'utf8')), file);
}
