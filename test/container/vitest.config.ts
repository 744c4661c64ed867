import { defineConfig } from 'vitest/config';

// The container test alone: it builds and runs the image (root and podman, minutes), so the main
// config leaves it out of `npm test`; .ci/run runs it after the suite. It talks to the image over
// HTTP and imports nothing of src/, so none of the main config's setup applies.
export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    // One file, its steps in order against one image.
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 20 * 60_000,
  },
});
