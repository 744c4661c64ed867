import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';
import { sandboxSql } from '../../src/sql/sandbox.js';

const saved = `-- two tables
with a as (select x from t where p = @p),
b as (select y from u)
select x from a order by x desc limit 5`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A queries dir holding one sandboxed endpoint with `sql` and the parameters `declared`. */
function sandboxedDir(sql: string, declared: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-sandbox-load-'));
  dirs.push(dir);
  const contract = {
    name: 'demo.sandboxed',
    id: '7c4b2a1e-3d5f-4e6a-8b9c-0d1e2f3a4b5c',
    description: 'A sandboxed endpoint.',
    maxRows: 10,
    cacheSeconds: 0,
    warmSeconds: null,
    sandboxed: true,
    parameters: declared.map((name) => ({ name, required: false, description: `The ${name}.` })),
    columns: { id: { description: 'The id.' } },
  };
  writeFileSync(join(dir, 'demo.sandboxed.yaml'), JSON.stringify(contract));
  copyFileSync(join(queriesDir, 'sources.yaml'), join(dir, 'sources.yaml'));
  writeFileSync(join(dir, 'demo.sandboxed.sql'), sql);
  return dir;
}

describe('merging a caller SELECT into a sandboxed query', () => {
  it("keeps the saved WITH and replaces the final SELECT, ORDER BY and LIMIT with the caller's", () => {
    const merged = sandboxSql(saved, 'select y from b order by y limit 2', new Set(['p']));
    expect(merged.sql).toBe(`-- two tables
with a as (select x from t where p = @p),
b as (select y from u)
select y from b order by y limit 2`);
    expect(merged.callerLineOffset).toBe(3);
  });

  it("puts the caller's CTEs after the saved ones, keeping every caller position", () => {
    const caller = 'WITH c as (select x from a)\nselect x from c';
    const merged = sandboxSql(saved, caller, new Set(['p']));
    const lines = merged.sql.split('\n');
    expect(lines.slice(merged.callerLineOffset)).toEqual(['     c as (select x from a)', 'select x from c']);
    expect(lines[merged.callerLineOffset - 1]).toBe('b as (select y from u),');
  });

  it('merges a caller SELECT calling SAFE.SUBSTR, a name the parser takes for a keyword', () => {
    const merged = sandboxSql(saved, 'select safe.substr(y, 2) as z from b', new Set(['p']));
    expect(merged.sql.split('\n').at(-1)).toBe('select safe.substr(y, 2) as z from b');
    const other = sandboxSql(saved, 'select safe.substr(y, 3) as z from b', new Set(['p']));
    expect(merged.normalized).not.toBe(other.normalized);
  });

  it('normalises spacing, comments and keyword case, but not what the query means', () => {
    const one = sandboxSql(saved, 'SELECT x FROM a WHERE x > 1', new Set()).normalized;
    expect(sandboxSql(saved, 'select   x\nfrom a -- note\nwhere x>1', new Set()).normalized).toBe(one);
    expect(sandboxSql(saved, 'select x from a where x > 2', new Set()).normalized).not.toBe(one);
  });

  it('lets the caller use the declared parameters and no other', () => {
    expect(sandboxSql(saved, 'select x from a where x = @p', new Set(['p'])).sql).toContain('@p');
    expect(() => sandboxSql(saved, 'select x from a where x = @q', new Set(['p']))).toThrow(/@q/);
  });
});

describe('loading a sandboxed endpoint', () => {
  it('refuses one whose SQL is not a WITH query', () => {
    const dir = sandboxedDir('select id from `cloudflare.logs.prod`', []);
    expect(() => loadEndpointRegistry(dir)).toThrow(/must be a WITH query/);
  });

  it('refuses one that declares a parameter named sql', () => {
    const dir = sandboxedDir(
      'with e as (select id from `cloudflare.logs.prod` where id = @sql) select id from e',
      ['sql'],
    );
    expect(() => loadEndpointRegistry(dir)).toThrow(/parameter named sql/);
  });

  it('loads one whose SQL is a WITH query', () => {
    const dir = sandboxedDir('with e as (select id from `cloudflare.logs.prod`) select id from e', []);
    expect(loadEndpointRegistry(dir).find('demo.sandboxed')?.sandboxed).toBe(true);
  });
});
