import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, type GraphQLObjectType, getNamedType, isLeafType } from 'graphql';
import { packageRoot } from '../src/paths.js';

// Dashboards' traffic, as issue 31 describes it: a handful of operations, each sent with
// arguments rotating over a few dozen argument sets whose results are cached, with variables an
// operation does not use beside the ones it does. The operations vary what a GraphQL server has
// to do: plain fields, aliases, a fragment, several endpoint fields in one or two namespaces,
// one operation of a document of two.

const bucket =
  'timestamp minExecutionTime maxExecutionTime avgExecutionTime p95ExecutionTime count errorCount';
const usage = 'timestamp totalRestRequests totalAuthRequests totalStorageRequests totalRealtimeRequests';

/** A document and, where it holds several operations, the one a request names. */
export interface VariedOperation {
  readonly query: string;
  readonly operationName?: string;
}

/**
 * Every operation is sent all three variables, so each uses some and ignores others. The third
 * document holds two operations, and requests name the second. Five, prime to the number of
 * argument sets (`variedBodies` pairs each with every set).
 */
export const variedOperations: readonly VariedOperation[] = [
  {
    query: /* GraphQL */ `query Stats($project: String!, $interval: InvocationInterval!) {
  functions { invocationStats(project: $project, interval: $interval) { ${bucket} } }
}`,
  },
  {
    query: /* GraphQL */ `query Aliased($project: String!, $interval: InvocationInterval!) {
  fn: functions { stats: invocationStats(project: $project, interval: $interval) { at: timestamp count errors: errorCount p95: p95ExecutionTime } }
}`,
  },
  {
    query: /* GraphQL */ `query Hourly($project: String!) {
  usage { apiCounts(project: $project, interval: HOURLY) { timestamp totalRestRequests } }
}
query Fragmented($project: String!, $interval: InvocationInterval!) {
  functions { invocationStats(project: $project, interval: $interval) { ...Bucket } }
}
fragment Bucket on InvocationStatsBucket { timestamp count avgExecutionTime maxExecutionTime }`,
    operationName: 'Fragmented',
  },
  {
    query: /* GraphQL */ `query Dashboard($project: String!, $interval: InvocationInterval!, $usageInterval: UsageInterval!) {
  functions { invocationStats(project: $project, interval: $interval) { timestamp count errorCount } }
  usage { apiCounts(project: $project, interval: $usageInterval) { ${usage} } }
}`,
  },
  {
    query: /* GraphQL */ `query Windows($project: String!) {
  functions {
    hour: invocationStats(project: $project, interval: ONE_HOUR) { timestamp count errorCount }
    quarter: invocationStats(project: $project, interval: FIFTEEN_MINUTES) { timestamp count errorCount }
  }
}`,
  },
];

/** The variables of one request, before its unused `request` counter is added. */
export interface ArgumentSet {
  readonly project: string;
  readonly interval: 'ONE_HOUR' | 'FIFTEEN_MINUTES';
  readonly usageInterval: 'MINUTELY' | 'HOURLY';
}

/** `projects.length` × 2 argument sets: each project with two windows. */
export function argumentSets(projects: readonly string[]): ArgumentSet[] {
  return projects.flatMap((project) => [
    { project, interval: 'ONE_HOUR', usageInterval: 'MINUTELY' } as const,
    { project, interval: 'FIFTEEN_MINUTES', usageInterval: 'HOURLY' } as const,
  ]);
}

/**
 * Every (operation, argument set) pair as a request body whose unused `request` variable is `{n}`,
 * for the load generator to make unique (so no answer is ever replayed), in an order that
 * changes operation and argument set on every request.
 */
export function variedBodies(sets: readonly ArgumentSet[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < variedOperations.length * sets.length; i++) {
    const { query, operationName } = variedOperations[i % variedOperations.length] as VariedOperation;
    const variables = { ...(sets[i % sets.length] as ArgumentSet), request: 0 };
    bodies.push(JSON.stringify({ query, operationName, variables }).replace('"request":0', '"request":{n}'));
  }
  return bodies;
}

/** The arguments of a field call as the peer's resolvers look them up (see peers/mercurius-jit.ts). */
export function argumentsKey(args: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.keys(args)
      .sort()
      .map((name) => [name, args[name]]),
  );
}

/** An endpoint field the varied operations call, with the argument sets it is called with. */
interface CalledField {
  readonly namespace: 'functions' | 'usage';
  readonly field: string;
  readonly calls: readonly Readonly<Record<string, string>>[];
}

function calledFields(sets: readonly ArgumentSet[]): CalledField[] {
  const intervals = ['ONE_HOUR', 'FIFTEEN_MINUTES'];
  const projects = [...new Set(sets.map((set) => set.project))];
  return [
    {
      namespace: 'functions',
      field: 'invocationStats',
      calls: projects.flatMap((project) => intervals.map((interval) => ({ project, interval }))),
    },
    {
      namespace: 'usage',
      field: 'apiCounts',
      calls: sets.map(({ project, usageInterval }) => ({ project, interval: usageInterval })),
    },
  ];
}

/**
 * The rows querygate answers for every call the varied operations make, every column selected,
 * as `{ namespace: { field: { argumentsKey: rows } } }`: what the peer's resolvers hand back.
 */
export async function variedAnswers(
  graphqlUrl: string,
  headers: Record<string, string>,
  sets: readonly ArgumentSet[],
): Promise<Record<string, Record<string, Record<string, unknown>>>> {
  const schema = buildSchema(readFileSync(join(packageRoot, 'schema/schema.graphql'), 'utf8'));
  const answers: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const { namespace, field, calls } of calledFields(sets)) {
    const namespaceType = getNamedType(
      schema.getQueryType()?.getFields()[namespace]?.type,
    ) as GraphQLObjectType;
    const rowType = getNamedType(namespaceType.getFields()[field]?.type) as GraphQLObjectType;
    const leaves = Object.values(rowType.getFields())
      .filter((leaf) => isLeafType(getNamedType(leaf.type)))
      .map((leaf) => leaf.name);
    const byArguments: Record<string, unknown> = {};
    for (const call of calls) {
      const literal = Object.entries(call)
        .map(([name, value]) => `${name}: ${name === 'project' ? JSON.stringify(value) : value}`)
        .join(', ');
      const query = `{ ${namespace} { ${field}(${literal}) { ${leaves.join(' ')} } } }`;
      const answer = await fetch(graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query }) });
      const { data } = (await answer.json()) as { data?: Record<string, Record<string, unknown>> };
      if (answer.status !== 200 || !data) throw new Error(`querygate answered ${answer.status} to ${query}`);
      byArguments[argumentsKey(call)] = data[namespace]?.[field];
    }
    answers[namespace] = { ...answers[namespace], [field]: byArguments };
  }
  return answers;
}
