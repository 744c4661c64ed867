import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contractSchema } from '../../src/endpoints/contract.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { issueLines } from '../../src/endpoints/yaml-file.js';
import { queriesDir } from '../../src/paths.js';

/** Checks a contract as the registry does; the error has one `file: field: problem` line per problem. */
function parseContract(contract: unknown, file: string) {
  const parsed = contractSchema.safeParse(contract);
  if (!parsed.success) throw new Error(issueLines(file, parsed.error).join('\n'));
  return parsed.data;
}

/** A manifest of one valid endpoint, with `maximumBytesBilled` when given. */
function contractWithCap(maximumBytesBilled?: string) {
  return {
    name: 'test.capped',
    id: '0d4c1a52-5d2b-4c3e-9b56-000000000010',
    description: 'An endpoint with a bytes cap.',
    maxRows: 10,
    cacheSeconds: 0,
    warmSeconds: null,
    sandboxed: false,
    ...(maximumBytesBilled === undefined ? {} : { maximumBytesBilled }),
    parameters: [{ name: 'project', required: true, description: 'Project.' }],
    columns: { n: { description: 'A count.' } },
  };
}

describe("the contract's per-endpoint maximumBytesBilled", () => {
  it.each(['1', '10000000000', '9223372036854775807'])('accepts %s bytes', (cap) => {
    expect(parseContract(contractWithCap(cap), 'test.capped.yaml').maximumBytesBilled).toBe(cap);
  });

  it('is optional', () => {
    expect(parseContract(contractWithCap(), 'test.capped.yaml')).not.toHaveProperty('maximumBytesBilled');
  });

  it.each([
    ['0', 'a cap no query could meet'],
    ['9223372036854775808', 'one more than INT64 holds'],
    ['99999999999999999999', 'twenty digits'],
    ['010', 'a leading zero'],
    ['-5', 'a negative number'],
    ['1e9', 'E notation'],
  ])('refuses %s (%s), naming the entry and the allowed range', (cap) => {
    expect(() => parseContract(contractWithCap(cap), 'queries/test.capped.yaml')).toThrow(
      'queries/test.capped.yaml: maximumBytesBilled: must be a whole number of bytes from 1 to 9223372036854775807 (INT64), e.g. 10000000000 for 10 GB',
    );
  });
});

describe('contract files', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A queries dir of the shipped sources and one endpoint `demo.counts` with the given contract text. */
  function dirWith(contract: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'querygate-contract-'));
    dirs.push(dir);
    copyFileSync(join(queriesDir, 'sources.yaml'), join(dir, 'sources.yaml'));
    writeFileSync(
      join(dir, 'demo.counts.sql'),
      'select count(*) as n from `cloudflare.logs.prod` where project = @project',
    );
    writeFileSync(join(dir, 'demo.counts.yaml'), contract);
    return dir;
  }
  const valid = [
    'name: demo.counts',
    'id: 6b0f3c1e-2a4d-4e5f-8a9b-0c1d2e3f4a5b',
    'description: Edge requests of a project.',
    'maxRows: 10',
    'cacheSeconds: 60',
    'warmSeconds: null',
    'sandboxed: false',
    'parameters:',
    '  - { name: project, required: true, description: The project. }',
    'columns:',
    '  n: { description: The count. }',
  ];

  it('loads a contract written in YAML with its parameter types', () => {
    const registry = loadEndpointRegistry(dirWith(valid.join('\n')));
    expect(registry.find('demo.counts')?.parameterTypes).toEqual({ project: 'STRING' });
  });

  /** `line:column` (1-based) where `text` first appears in the contract's lines. */
  function positionIn(lines: readonly string[], text: string): string {
    const line = lines.findIndex((written) => written.includes(text));
    return `${line + 1}:${(lines[line] as string).indexOf(text) + 1}`;
  }

  it('refuses a contract naming the file, the line and column, and the field that is wrong', () => {
    const lines = valid.map((line) => line.replace('maxRows: 10', 'maxRows: ten'));
    const dir = dirWith(lines.join('\n'));
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.yaml')}:${positionIn(lines, 'ten')}: maxRows: Invalid input: expected number, received string`,
    );
  });

  it('refuses a parameter type it does not know, naming the parameter by position and its place', () => {
    const lines = valid.map((line) => line.replace('required: true,', 'required: true, type: date,'));
    const dir = dirWith(lines.join('\n'));
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.yaml')}:${positionIn(lines, 'date')}: parameters[0].type:`,
    );
  });

  it('refuses a value that is no GraphQL enum name unless the contract gives one, at the value', () => {
    const lines = valid.map((line) =>
      line.replace('description: The project. }', "description: The project., values: ['5min'] }"),
    );
    const dir = dirWith(lines.join('\n'));
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.yaml')}:${positionIn(lines, "'5min'")}: parameters[0].values[0].graphql: '5min' is no GraphQL enum name; give one with graphql: NAME`,
    );
  });

  it('refuses YAML that does not parse, naming the file, the line and the column', () => {
    // A sequence item in a mapping whose keys start at column 1: line 12, where it starts.
    const dir = dirWith(`${valid.join('\n')}\n  - [unclosed`);
    expect(() => loadEndpointRegistry(dir)).toThrow(`${join(dir, 'demo.counts.yaml')}:12:`);
  });

  it('loads a contract of its name alone, deriving the rest', () => {
    const dir = dirWith('name: demo.counts\n');
    const endpoint = loadEndpointRegistry(dir).find('demo.counts');
    expect(endpoint).toMatchObject({
      maxRows: 1000,
      cacheSeconds: 0,
      warmSeconds: null,
      sandboxed: false,
      columns: {},
      description: 'The rows of saved query demo.counts.',
      // The SQL's @project, required text as a declared one is by default.
      parameters: [
        { name: 'project', required: true, type: 'text', description: 'The @project of the SQL.' },
      ],
      parameterTypes: { project: 'STRING' },
    });
    // RFC 9562's name-based (version 5) layout: the version nibble is 5, the variant 10xx.
    expect(endpoint?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('derives the same id for a name on every load, another for another name, and keeps an id written', () => {
    const first = loadEndpointRegistry(dirWith('name: demo.counts\n')).find('demo.counts')?.id;
    const again = loadEndpointRegistry(dirWith('name: demo.counts\ndescription: Changed.\n')).find(
      'demo.counts',
    )?.id;
    expect(again).toBe(first);
    const other = mkdtempSync(join(tmpdir(), 'querygate-contract-'));
    dirs.push(other);
    copyFileSync(join(queriesDir, 'sources.yaml'), join(other, 'sources.yaml'));
    writeFileSync(join(other, 'demo.other.sql'), 'select 1 as n');
    writeFileSync(join(other, 'demo.other.yaml'), 'name: demo.other\n');
    expect(loadEndpointRegistry(other).find('demo.other')?.id).not.toBe(first);
    expect(loadEndpointRegistry(dirWith(valid.join('\n'))).find('demo.counts')?.id).toBe(
      '6b0f3c1e-2a4d-4e5f-8a9b-0c1d2e3f4a5b',
    );
  });

  it('keeps the ids the shipped queries write', () => {
    // As their contracts write them (README's calls and Logflare clients use these paths).
    const ids = Object.fromEntries(loadEndpointRegistry(queriesDir).endpoints.map((e) => [e.name, e.id]));
    expect(ids).toEqual({
      'functions.invocation-stats': 'd5018206-daee-4c4b-a7a7-f4a9757b65b4',
      'logs.all': 'f45bae19-6f69-4f40-8fc7-3177d782efcd',
      'usage.api-counts': 'd63cbdfc-67c3-462f-9623-d135cbc48244',
    });
  });

  it('refuses an example naming no parameter of the SQL when the contract derives them', () => {
    const dir = dirWith('name: demo.counts\nexamples:\n  - { projet: default }\n');
    expect(() => loadEndpointRegistry(dir)).toThrow(
      'examples[0].projet: names projet, which is no parameter',
    );
  });

  it('reports a SQL that does not parse against the .sql file, with its line and column', () => {
    const dir = dirWith(valid.join('\n'));
    writeFileSync(
      join(dir, 'demo.counts.sql'),
      'select count(*) as n\nfrom `cloudflare.logs.prod`\nwhere = @project',
    );
    // sqlparser stops at the `=` that has no left side: line 3, column 7.
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.sql')}:3:7: SQL does not parse`,
    );
  });

  it('refuses a SQL file without a contract beside it', () => {
    const dir = dirWith(valid.join('\n'));
    writeFileSync(join(dir, 'demo.orphan.sql'), 'select 1 as x');
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.orphan.sql')}: has no contract demo.orphan.yaml beside it`,
    );
  });
});
