import { loadSqlParser } from '../../src/sql/bigquery-ast.js';

// Vitest's setup file: test files call the synchronous parser at collection time (registries,
// golden translations), as the CLI and the server do after awaiting this at start.
await loadSqlParser();
