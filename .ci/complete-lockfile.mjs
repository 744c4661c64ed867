// The npm registry this project's machines reach serves only the Linux builds of some packages
// with per-platform optional dependencies (Biome, DuckDB's bindings), so `npm install` leaves the
// other platforms out of package-lock.json and `npm ci` then refuses the lock as out of sync.
// This adds the missing entries back, with the os/cpu/libc npm needs to skip them: run it after
// every `npm install` that rewrites the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const platforms = ['darwin', 'linux', 'win32', 'android', 'freebsd'];
const cpus = ['x64', 'arm64', 'ia32', 'arm'];
let added = 0;
for (const parent of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const parts = name.split('/').at(-1).split('-');
    const os = parts.find((part) => platforms.includes(part));
    const cpu = parts.find((part) => cpus.includes(part));
    lock.packages[key] = {
      version,
      optional: true,
      ...(parent.dev ? { dev: true } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(os ? { os: [os] } : {}),
      ...(parts.includes('musl') ? { libc: ['musl'] } : {}),
    };
    added += 1;
  }
}
const [root, ...rest] = Object.entries(lock.packages);
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : 1))]);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
