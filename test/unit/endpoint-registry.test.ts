import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';

/** A queries dir holding one endpoint, `demo.counts`, with `sql` and a contract of `declared`. */
function queriesDirWith(sql: string, declared: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-registry-'));
  dirs.push(dir);
  const parameters = declared.map((name) => ({ name, required: true, description: `The ${name}.` }));
  const endpoint = {
    name: 'demo.counts',
    id: '0b9d6a3e-5c1f-4d2a-9e8b-7f6a5d4c3b2a',
    description: 'Counts of edge requests.',
    maxRows: 10,
    cacheSeconds: 0,
    warmSeconds: null,
    sandboxed: false,
    parameters,
    columns: { n: { description: 'The count.' } },
  };
  // JSON is YAML: the contract is written as the JSON subset of it.
  writeFileSync(join(dir, 'demo.counts.yaml'), JSON.stringify(endpoint));
  copyFileSync(join(queriesDir, 'sources.yaml'), join(dir, 'sources.yaml'));
  writeFileSync(join(dir, 'demo.counts.sql'), sql);
  return dir;
}

const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const countsSql = (where: string) => `select count(*) as n from \`cloudflare.logs.prod\` as t where ${where}`;

describe('endpoint registry', () => {
  it('loads an endpoint whose SQL uses exactly the parameters of its contract', () => {
    const dir = queriesDirWith(countsSql('t.project = @project and t.event_message = @message'), [
      'project',
      'message',
    ]);
    const registry = loadEndpointRegistry(dir);
    expect(registry.find('demo.counts')?.parameters.map((parameter) => parameter.name)).toEqual([
      'project',
      'message',
    ]);
    expect(registry.find('0B9D6A3E-5C1F-4D2A-9E8B-7F6A5D4C3B2A')?.name).toBe('demo.counts');
  });

  it('refuses an endpoint whose SQL uses a parameter its contract does not declare, naming both', () => {
    const dir = queriesDirWith(countsSql('t.project = @project and t.event_message = @message'), ['project']);
    expect(() => loadEndpointRegistry(dir)).toThrow(
      /^Endpoint demo\.counts: the SQL uses @message, which the contract does not declare$/,
    );
  });

  it('refuses an endpoint whose contract declares a parameter its SQL does not use, naming both', () => {
    const dir = queriesDirWith(countsSql('t.project = @project'), ['project', 'interval']);
    expect(() => loadEndpointRegistry(dir)).toThrow(
      /^Endpoint demo\.counts: the contract declares interval, which the SQL does not use$/,
    );
  });

  it('names every drifted parameter when the SQL and its contract differ both ways', () => {
    const dir = queriesDirWith(countsSql('t.project = @project_ref'), ['project']);
    let message = '';
    try {
      loadEndpointRegistry(dir);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('demo.counts');
    expect(message).toContain('@project_ref');
    expect(message).toContain('declares project,');
  });
});

describe('endpoint registry, partial', () => {
  it('refuses the later of two endpoints with one UUID, naming its file and the id key, and keeps the first', () => {
    const dir = queriesDirWith(countsSql('true'), []);
    // A copy under a new name that kept the UUID: the way most users start an endpoint.
    writeFileSync(
      join(dir, 'demo.copy.yaml'),
      readFileSync(join(dir, 'demo.counts.yaml'), 'utf8').replace('"demo.counts"', '"demo.copy"'),
    );
    copyFileSync(join(dir, 'demo.counts.sql'), join(dir, 'demo.copy.sql'));
    writeFileSync(join(dir, 'demo.orphan.sql'), countsSql('true'));
    const registry = loadEndpointRegistry(dir, { refusals: 'partial' });
    expect(registry.endpoints.map((endpoint) => endpoint.name)).toEqual(['demo.copy']);
    expect(registry.refused).toEqual([
      {
        endpoint: 'demo.orphan',
        file: 'demo.orphan.sql',
        reason: 'has no contract demo.orphan.yaml beside it',
      },
      {
        endpoint: 'demo.counts',
        file: 'demo.counts.yaml',
        reason: 'id: 0b9d6a3e-5c1f-4d2a-9e8b-7f6a5d4c3b2a is also the id of demo.copy.yaml',
      },
    ]);
    // Strict, the same directory is refused whole, every problem on its own line.
    expect(() => loadEndpointRegistry(dir)).toThrow(
      /demo\.orphan\.sql: has no contract[\s\S]*\n.*demo\.counts\.yaml: id: /,
    );
  });
});
