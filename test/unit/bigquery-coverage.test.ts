import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { translatedFunctions } from '../../src/sql/function-rules.js';

// docs/bigquery-coverage.md is the list users read; these keep it true to the rules and tests.
const doc = readFileSync(join(__dirname, '../../docs/bigquery-coverage.md'), 'utf8');
const rows = doc
  .split('\n')
  .filter(
    (line) => line.startsWith('| ') && !line.startsWith('| BigQuery |') && !line.startsWith('| Construct |'),
  )
  .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|')))
  .filter((cells) => cells.length === 6);

describe('docs/bigquery-coverage.md', () => {
  it('has a row for every function the translator has a rule for', () => {
    // Dotted names (NET.HOST) are one name.
    const named = new Set(
      rows.flatMap(([, first]) => (first ?? '').match(/[A-Z][A-Z0-9_]+(?:\.[A-Z][A-Z0-9_]+)*/g) ?? []),
    );
    const missing = translatedFunctions.filter((name) => !named.has(name.toUpperCase()));
    expect(missing).toEqual([]);
  });

  it('names, on every row, a test that exists in the named file', () => {
    const unknown = rows.flatMap((cells) => {
      const match = /^`([\w.-]+\.test\.ts)` › (.+)$/.exec(cells[4] ?? '');
      if (!match) return [`${cells[1]}: no test named`];
      const source = readFileSync(join(__dirname, match[1] as string), 'utf8');
      return source.includes(match[2] as string) ? [] : [`${cells[1]}: ${match[2]}`];
    });
    expect(unknown).toEqual([]);
    expect(rows.length).toBeGreaterThan(80);
  });
});
