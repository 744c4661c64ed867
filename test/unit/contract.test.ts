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

  it('refuses a contract naming the file and the field that is wrong', () => {
    const dir = dirWith(valid.join('\n').replace('maxRows: 10', 'maxRows: ten'));
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.yaml')}: maxRows: Invalid input: expected number, received string`,
    );
  });

  it('refuses a parameter type it does not know, naming the parameter by position', () => {
    const dir = dirWith(valid.join('\n').replace('required: true,', 'required: true, type: date,'));
    expect(() => loadEndpointRegistry(dir)).toThrow(`${join(dir, 'demo.counts.yaml')}: parameters[0].type:`);
  });

  it('refuses a value that is no GraphQL enum name unless the contract gives one', () => {
    const dir = dirWith(
      valid
        .join('\n')
        .replace('description: The project. }', "description: The project., values: ['5min'] }"),
    );
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.counts.yaml')}: parameters[0].values[0].graphql: '5min' is no GraphQL enum name; give one with graphql: NAME`,
    );
  });

  it('refuses YAML that does not parse, naming the file', () => {
    const dir = dirWith(`${valid.join('\n')}\n  - [unclosed`);
    expect(() => loadEndpointRegistry(dir)).toThrow(join(dir, 'demo.counts.yaml'));
  });

  it('refuses a SQL file without a contract beside it', () => {
    const dir = dirWith(valid.join('\n'));
    writeFileSync(join(dir, 'demo.orphan.sql'), 'select 1 as x');
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${join(dir, 'demo.orphan.sql')}: has no contract demo.orphan.yaml beside it`,
    );
  });
});
