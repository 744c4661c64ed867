import type { LogWriter } from '../src/storage/log-writer.js';

/**
 * Benchmark data: edge requests and relay records over `projects` projects with a skewed size
 * distribution (project i gets a share proportional to 1 / (i + 1)^0.6, so the largest holds about
 * 10%), spread evenly over `days` days ending at `now`, in time order as logs arrive.
 */
export interface BenchDataOptions {
  readonly now: Date;
  readonly edgeRows: number;
  readonly relayRows: number;
  readonly projects?: number;
  readonly days?: number;
  /** Events per writer call (one transaction each). */
  readonly batchSize?: number;
}

const skew = 0.6;
const paths = [
  '/rest/v1/todos',
  '/rest/v1/profiles',
  '/storage/v1/object/public/a.png',
  '/auth/v1/token',
  '/realtime/v1/websocket',
  '/functions/v1/hello',
  '/graphql/v1',
];
const statuses = [200, 200, 200, 200, 201, 204, 304, 400, 401, 404, 500];

export function benchProjects(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `project-${String(i).padStart(2, '0')}`);
}

/** Cumulative shares of the skewed distribution, for picking a project from a uniform draw. */
function cumulativeShares(count: number): number[] {
  const weights = Array.from({ length: count }, (_, i) => 1 / (i + 1) ** skew);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let running = 0;
  return weights.map((weight) => (running += weight / total));
}

/** The share of all rows the project at `index` gets. */
export function projectShare(index: number, count: number): number {
  const shares = cumulativeShares(count);
  return (shares[index] ?? 1) - (shares[index - 1] ?? 0);
}

/** mulberry32: a small seeded generator, so a run (of data, or of kill moments) can be replayed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes the data through the writer (the project's own bulk path); returns seconds taken. */
export async function generateBenchLogs(writer: LogWriter, options: BenchDataOptions): Promise<number> {
  const started = performance.now();
  const projects = benchProjects(options.projects ?? 50);
  const shares = cumulativeShares(projects.length);
  const spanMs = (options.days ?? 7) * 86_400_000;
  const end = options.now.getTime();
  const batchSize = options.batchSize ?? 50_000;
  const random = mulberry32(42);
  const pickProject = () => {
    const draw = random();
    const index = shares.findIndex((share) => draw <= share);
    return projects[index === -1 ? projects.length - 1 : index] as string;
  };

  async function fill(source: string, rows: number, build: (project: string, index: number) => object) {
    for (let start = 0; start < rows; start += batchSize) {
      const events: object[] = [];
      for (let i = start; i < Math.min(rows, start + batchSize); i++) {
        // Evenly spaced in time, oldest first, as a log stream arrives.
        const timestamp = new Date(end - spanMs + Math.floor(((i + 0.5) / rows) * spanMs)).toISOString();
        events.push({ timestamp, ...build(pickProject(), i) });
      }
      await writer.write(source, events);
    }
  }

  await fill('cloudflare.logs.prod', options.edgeRows, (project, i) => {
    const path = paths[i % paths.length] as string;
    const status = statuses[Math.floor(random() * statuses.length)] as number;
    return {
      event_message: `GET | ${status} | ${path}`,
      project,
      metadata: {
        request: {
          url: `https://${project}.supabase.co${path}`,
          path,
          method: 'GET',
          host: `${project}.supabase.co`,
        },
        response: { status_code: status, origin_time: Math.floor(random() * 200) },
      },
    };
  });
  await fill('deno-relay-logs', options.relayRows, (project, i) => {
    const status = statuses[Math.floor(random() * statuses.length)] as number;
    return {
      event_message: `POST /functions/v1/fn-${i % 5}`,
      metadata: {
        project_ref: project,
        function_id: `${project}-fn-${i % 5}`,
        execution_time_ms: Math.floor(-Math.log(1 - random()) * 80),
        deployment_id: `${project}-deploy`,
        response: { status_code: status },
      },
    };
  });
  return (performance.now() - started) / 1000;
}
