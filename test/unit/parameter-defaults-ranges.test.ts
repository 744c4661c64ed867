import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bindParameters } from '../../src/endpoints/bind-parameters.js';
import { contractSchema } from '../../src/endpoints/contract.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { issueLines } from '../../src/endpoints/yaml-file.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';

/** A valid contract with these parameters, as a contract file would hold it. */
function contractWith(parameters: readonly Record<string, unknown>[]) {
  return {
    name: 'test.ranged',
    id: '0d4c1a52-5d2b-4c3e-9b56-000000000027',
    description: 'An endpoint with defaults and ranges.',
    maxRows: 10,
    cacheSeconds: 0,
    warmSeconds: null,
    sandboxed: false,
    parameters,
    columns: { n: { description: 'A count.' } },
  };
}

function parse(parameters: readonly Record<string, unknown>[]) {
  const parsed = contractSchema.safeParse(contractWith(parameters));
  if (!parsed.success) throw new Error(issueLines('test.ranged.yaml', parsed.error).join('\n'));
  return parsed.data.parameters ?? [];
}

const top = {
  name: 'top',
  required: false,
  type: 'integer',
  description: 'Rows.',
  min: 1,
  max: 1000,
  default: 10,
};
const ratio = { name: 'ratio', required: false, type: 'number', description: 'A share.', min: 0, max: 1 };
const interval = {
  name: 'interval',
  required: false,
  description: 'Bucket.',
  values: ['hourly', 'daily'],
  default: 'daily',
};

/** The values a query string binds to. */
function bind(parameters: ReturnType<typeof parse>, query: string) {
  const given = new URLSearchParams(query);
  return bindParameters(parameters, (name) => given.getAll(name));
}

/** The BAD_PARAMETER a bind throws, as its parameter and message. */
function refusal(parameters: ReturnType<typeof parse>, query: string) {
  try {
    bind(parameters, query);
  } catch (error) {
    if (isQuerygateError(error) && error.code === 'BAD_PARAMETER') {
      return { parameter: error.details?.parameter, message: error.message };
    }
    throw error;
  }
  throw new Error(`${query} was bound`);
}

describe('parameter defaults', () => {
  const parameters = parse([top, interval]);

  it('binds the default when the parameter is absent or empty', () => {
    expect(bind(parameters, '')).toEqual({ top: '10', interval: 'daily' });
    expect(bind(parameters, 'top=&interval=')).toEqual({ top: '10', interval: 'daily' });
  });

  it('binds a value the caller gives instead of the default', () => {
    expect(bind(parameters, 'top=25&interval=hourly')).toEqual({ top: '25', interval: 'hourly' });
  });

  it('leaves an optional parameter without a default unset', () => {
    expect(bindParameters(parse([ratio]), () => [])).toEqual({ ratio: null });
  });
});

describe('parameter ranges', () => {
  const parameters = parse([top, ratio]);

  it.each([
    ['top=0', 'top', "Parameter 'top' must be from 1 to 1000 (got '0')"],
    ['top=1001', 'top', "Parameter 'top' must be from 1 to 1000 (got '1001')"],
    ['top=-1', 'top', "Parameter 'top' must be from 1 to 1000 (got '-1')"],
    ['ratio=1.5', 'ratio', "Parameter 'ratio' must be from 0 to 1 (got '1.5')"],
    ['ratio=-0.001', 'ratio', "Parameter 'ratio' must be from 0 to 1 (got '-0.001')"],
  ])('refuses %s, naming the parameter and its range', (query, parameter, message) => {
    expect(refusal(parameters, query)).toEqual({ parameter, message });
  });

  it('accepts both ends of the range', () => {
    expect(bind(parameters, 'top=1&ratio=0')).toEqual({ top: '1', ratio: '0' });
    expect(bind(parameters, 'top=1000&ratio=1')).toEqual({ top: '1000', ratio: '1' });
  });

  it('says only the bound there is when one side is open', () => {
    const least = parse([{ name: 'n', required: true, type: 'integer', description: 'N.', min: 0 }]);
    const most = parse([{ name: 'n', required: true, type: 'integer', description: 'N.', max: 5 }]);
    expect(refusal(least, 'n=-1').message).toBe("Parameter 'n' must be at least 0 (got '-1')");
    expect(refusal(most, 'n=6').message).toBe("Parameter 'n' must be at most 5 (got '6')");
  });

  it('compares INT64 values past 2^53 exactly', () => {
    const big = parse([{ name: 'n', required: true, type: 'integer', description: 'N.', max: 2 ** 53 }]);
    // 2^53 + 1 is no double: compared as a double it would equal the max and pass.
    expect(refusal(big, 'n=9007199254740993').message).toBe(
      "Parameter 'n' must be at most 9007199254740992 (got '9007199254740993')",
    );
  });
});

describe('the contract refuses bounds and defaults that cannot hold', () => {
  it.each([
    [
      { name: 'who', required: false, description: 'W.', min: 1 },
      'test.ranged.yaml: parameters[0].min: min is for integer and number parameters; who is text',
    ],
    [
      { name: 'n', required: false, type: 'integer', description: 'N.', max: 2.5 },
      'test.ranged.yaml: parameters[0].max: n is an integer parameter, so its max is a whole number',
    ],
    [
      { name: 'n', required: false, type: 'integer', description: 'N.', min: 5, max: 1 },
      "test.ranged.yaml: parameters[0].min: n's min 5 is above its max 1",
    ],
    [
      { name: 'n', required: true, type: 'integer', description: 'N.', default: 3 },
      'test.ranged.yaml: parameters[0].default: n is required, so it takes no default (make it required: false)',
    ],
    [
      { name: 'n', required: false, type: 'integer', description: 'N.', default: '3' },
      'test.ranged.yaml: parameters[0].default: n is of type integer, so its default is a number (got "3")',
    ],
    [
      { name: 'on', required: false, type: 'boolean', description: 'On.', default: 'yes' },
      'test.ranged.yaml: parameters[0].default: on is of type boolean, so its default is a boolean (got "yes")',
    ],
  ])('refuses %j', (parameter, message) => {
    expect(() => parse([parameter])).toThrow(message);
  });
});

describe('a directory whose contract has a default outside its own range or values', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The shipped directory with usage.api-counts' contract given one more parameter line. */
  function directoryWith(parameterYaml: string, sql: (text: string) => string) {
    const dir = mkdtempSync(join(tmpdir(), 'querygate-defaults-'));
    dirs.push(dir);
    copyFileSync(join(queriesDir, 'sources.yaml'), join(dir, 'sources.yaml'));
    const name = 'usage.api-counts';
    const contract = readFileSync(join(queriesDir, `${name}.yaml`), 'utf8').replace(
      /^parameters:\n/m,
      `parameters:\n${parameterYaml}`,
    );
    writeFileSync(join(dir, `${name}.yaml`), contract);
    writeFileSync(join(dir, `${name}.sql`), sql(readFileSync(join(queriesDir, `${name}.sql`), 'utf8')));
    return { dir, file: join(dir, `${name}.yaml`) };
  }

  const withTop = (text: string) => `${text.trimEnd()}\nlimit @top\n`;

  it.each([
    [
      '  - { name: top, required: false, type: integer, description: Rows., min: 1, max: 100, default: 500 }\n',
      `top's default 500 is refused: it must be from 1 to 100 (got '500')`,
    ],
    [
      '  - { name: top, required: false, type: integer, description: Rows., default: 2.5 }\n',
      `top's default 2.5 is refused: it must be a whole number within INT64 (got '2.5')`,
    ],
  ])('refuses it at load, naming the file and the parameter', (line, reason) => {
    const { dir, file } = directoryWith(line, withTop);
    expect(() => loadEndpointRegistry(dir)).toThrow(`${file}: parameters[0].default: ${reason}`);
  });

  it('refuses a default that is not one of the declared values', () => {
    const { dir, file } = directoryWith(
      '  - { name: top, required: false, type: integer, description: Rows., default: 5 }\n',
      withTop,
    );
    // The shipped `interval` is required; an optional copy of it with a default outside its values.
    const contract = readFileSync(file, 'utf8').replace(
      /- name: interval\n\s+required: true/,
      '- name: interval\n    required: false\n    default: weekly',
    );
    writeFileSync(file, contract);
    expect(() => loadEndpointRegistry(dir)).toThrow(
      `${file}: parameters[2].default: interval's default "weekly" is refused: it must be one of minutely, hourly, daily (got 'weekly')`,
    );
  });
});
