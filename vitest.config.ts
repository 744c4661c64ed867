import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql ships CommonJS (`main`) and ESM (`module`) builds. Node, and so every dependency
  // (Pothos, yoga, graphql-scalars), loads the CommonJS one; Vite would give our own modules the
  // ESM one, and two copies of graphql refuse each other's types ("from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    // The container test builds and runs the image (root, podman, minutes): run on its own with
    // test/container/vitest.config.ts.
    exclude: [...configDefaults.exclude, 'test/container/**'],
    // The SQL parser is WASM and loads asynchronously, once, before any test file parses SQL.
    setupFiles: ['test/helpers/load-sql-parser.ts'],
    // src/ compiled once for the CLI the tests start in child processes.
    globalSetup: ['test/helpers/compiled-source.ts'],
    // Integration tests start servers and DuckDB files; two workers match the two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
