#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSortedSchema, schemaFor } from '../graphql/schema.js';
import { packageRoot, queriesDir } from '../paths.js';
import { loadSqlParser } from '../sql/bigquery-ast.js';
import { loadScratchSnapshot } from './scratch-snapshot.js';

/**
 * `npm run schema`: writes the GraphQL face of the shipped queries, sorted, to
 * schema/schema.graphql. The file is checked in so a schema change shows as a reviewable diff; a
 * unit test fails when it is stale.
 */
export const schemaFile = join(packageRoot, 'schema', 'schema.graphql');

await loadSqlParser();
writeFileSync(schemaFile, printSortedSchema(schemaFor(await loadScratchSnapshot(queriesDir))));
process.stdout.write(`Wrote ${schemaFile}\n`);
