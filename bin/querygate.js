#!/usr/bin/env node
// `querygate` from a clone (`npx querygate ...`, package.json's bin): runs the built CLI in
// dist/, or says in one line how to build it, rather than failing on a missing file.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  const root = fileURLToPath(new URL('..', import.meta.url));
  console.error(
    `querygate is not built yet: run \`npm run build\` in ${root} first (\`npm start\` builds too)`,
  );
  process.exitCode = 1;
}
