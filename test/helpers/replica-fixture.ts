import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queriesDir } from '../../src/paths.js';

// What the replicas' tests and the bench's `replicas` section serve and the fake BigQuery process
// holds: project i of `replicaProjects(n)` has i + 1 edge requests.

export const testProject = 'querygate-test';
export const testDataset = 'logs';
/** Counts one project's edge requests; cached and warmed as `writeReplicaQueries` says. */
export const replicaEndpoint = 'replica.requests';

export function replicaProjects(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `project-${String(index).padStart(3, '0')}`);
}

/** The edge requests the fixture gives `project`: its position in `replicaProjects` plus one. */
export function expectedRequests(project: string): number {
  return Number(project.slice('project-'.length)) + 1;
}

/**
 * A copy of the shipped queries directory (its sources and UDF) plus `replica.requests`, in a
 * new temporary directory; remove it when done.
 */
export function writeReplicaQueries(options: {
  readonly cacheSeconds: number;
  readonly warmSeconds: number;
}): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-replica-queries-'));
  cpSync(queriesDir, dir, { recursive: true });
  writeFileSync(
    join(dir, `${replicaEndpoint}.sql`),
    'select count(*) as requests from `cloudflare.logs.prod` where project = @project\n',
  );
  writeFileSync(
    join(dir, `${replicaEndpoint}.yaml`),
    [
      `name: ${replicaEndpoint}`,
      'id: 5b7e1f0a-3c2d-4e6f-8a9b-0c1d2e3f4a5b',
      'description: The edge requests of one project, counted.',
      'maxRows: 10',
      `cacheSeconds: ${options.cacheSeconds}`,
      `warmSeconds: ${options.warmSeconds}`,
      'sandboxed: false',
      'parameters:',
      '  - name: project',
      '    required: true',
      '    description: The project whose requests are counted.',
      'columns:',
      '  requests: { description: Edge requests of the project., nullable: false }',
      '',
    ].join('\n'),
  );
  return dir;
}
