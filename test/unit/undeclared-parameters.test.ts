import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { likelyMeant } from '../../src/endpoints/likely-meant.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import {
  type DeclaredParameters,
  refuseUndeclaredParameters,
} from '../../src/endpoints/undeclared-parameters.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';

const orders: DeclaredParameters = {
  name: 'checkout.orders',
  sandboxed: false,
  parameters: [{ name: 'project' }, { name: 'status' }, { name: 'min_amount_cents' }],
  undeclaredParameters: 'refuse',
};

/** The refusal of these names, as its message and details; undefined when they pass. */
function refusalOf(endpoint: DeclaredParameters, sent: readonly string[]) {
  try {
    refuseUndeclaredParameters(endpoint, sent);
    return undefined;
  } catch (error) {
    if (!isQuerygateError(error)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

describe('a parameter the endpoint does not declare', () => {
  it('is refused naming it and the declared parameter it most likely meant', () => {
    expect(refusalOf(orders, ['project', 'min_amout_cents'])).toEqual({
      code: 'BAD_PARAMETER',
      message: 'unknown parameter "min_amout_cents"; did you mean "min_amount_cents"?',
      details: { parameter: 'min_amout_cents', didYouMean: 'min_amount_cents' },
    });
  });

  it('is refused listing the declared parameters when none is close', () => {
    expect(refusalOf(orders, ['project', 'debug'])?.message).toBe(
      'unknown parameter "debug"; checkout.orders takes project, status, min_amount_cents',
    );
  });

  it("refuses sql on an endpoint that is not sandboxed, and lets a sandboxed one's caller send it", () => {
    expect(refusalOf(orders, ['sql'])?.message).toBe(
      'unknown parameter "sql"; checkout.orders is not sandboxed, so it takes no sql',
    );
    expect(refusalOf({ ...orders, sandboxed: true }, ['sql', 'project'])).toBeUndefined();
  });

  it('passes when every name is declared', () => {
    expect(refusalOf(orders, ['project', 'status', 'min_amount_cents'])).toBeUndefined();
  });

  it("is ignored where the endpoint's directory ignores undeclared parameters", () => {
    expect(
      refusalOf({ ...orders, undeclaredParameters: 'ignore' }, ['min_amout_cents', 'sql']),
    ).toBeUndefined();
  });
});

describe('the declared parameter a name most likely meant', () => {
  const declared = ['project', 'status', 'min_amount_cents', 'iso_timestamp_start', 'iso_timestamp_end'];

  it.each([
    ['min_amout_cents', 'min_amount_cents'],
    ['minAmountCents', 'min_amount_cents'],
    ['min-amount-cents', 'min_amount_cents'],
    ['projet', 'project'],
    ['Status', 'status'],
    ['iso_timestamp_stat', 'iso_timestamp_start'],
    ['iso_timestamp_ends', 'iso_timestamp_end'],
  ])('reads %s as %s', (name, meant) => {
    expect(likelyMeant(name, declared)).toBe(meant);
  });

  it.each(['debug', 'x', 'limit', 'page'])('suggests nothing for %s, which is like none of them', (name) => {
    expect(likelyMeant(name, declared)).toBeUndefined();
  });
});

describe("the directory's setting in sources.yaml", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the shipped directory with its sources.yaml changed by `edit`. */
  function copyWith(edit: (sources: string) => string): string {
    const dir = mkdtempSync(join(tmpdir(), 'querygate-undeclared-'));
    dirs.push(dir);
    cpSync(queriesDir, dir, { recursive: true });
    const file = join(dir, 'sources.yaml');
    writeFileSync(file, edit(readFileSync(file, 'utf8')));
    return dir;
  }

  it('is ignore in the shipped directory, refuse where a directory does not say, and part of each endpoint hash', () => {
    const shipped = loadEndpointRegistry(queriesDir);
    const unsaid = loadEndpointRegistry(
      copyWith((text) => text.replace(/^undeclaredParameters: ignore\n/m, '')),
    );
    expect(shipped.endpoints.map((endpoint) => endpoint.undeclaredParameters)).toEqual([
      'ignore',
      'ignore',
      'ignore',
    ]);
    expect(unsaid.endpoints.map((endpoint) => endpoint.undeclaredParameters)).toEqual([
      'refuse',
      'refuse',
      'refuse',
    ]);
    // A reload that changes only the setting sees changed endpoints, so it serves the change.
    expect(unsaid.endpoints.map((endpoint) => endpoint.hash)).not.toEqual(
      shipped.endpoints.map((endpoint) => endpoint.hash),
    );
  });

  it('refuses a value it does not know, naming the file, the line and column of the value, and the key', () => {
    const dir = copyWith((text) =>
      text.replace('undeclaredParameters: ignore', 'undeclaredParameters: warn'),
    );
    const lines = readFileSync(join(dir, 'sources.yaml'), 'utf8').split('\n');
    const line = lines.findIndex((text) => text.startsWith('undeclaredParameters: warn')) + 1;
    const column = 'undeclaredParameters: '.length + 1;
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'sources.yaml')}:${line}:${column}: undeclaredParameters:`,
    );
  });
});
