#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSortedSchema } from '../graphql/schema.js';
import { packageRoot } from '../paths.js';

/**
 * `npm run schema`: writes the GraphQL face's SDL, sorted, to schema/schema.graphql. The file is
 * checked in so a schema change shows as a reviewable diff; a unit test fails when it is stale.
 */
export const schemaFile = join(packageRoot, 'schema', 'schema.graphql');

writeFileSync(schemaFile, printSortedSchema());
process.stdout.write(`Wrote ${schemaFile}\n`);
