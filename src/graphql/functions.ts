import { builder } from './builder.js';
import { type EndpointBinding, runEndpoint } from './endpoint-field.js';
import { createRowMapper, numberValue } from './result-rows.js';
import { dateTimeText } from './scalars.js';

/** `functions.invocation-stats` on this face: GraphQL argument → contract parameter. */
export const invocationStatsBinding: EndpointBinding = {
  endpoint: 'functions.invocation-stats',
  arguments: { project: 'project', interval: 'interval', functionId: 'function_id' },
};

export const InvocationInterval = builder.enumType('InvocationInterval', {
  description: 'The window of functions.invocationStats and the size of its buckets.',
  values: {
    FIVE_MINUTES: { value: '5min', description: 'The last 5 minutes, one bucket per second.' },
    FIFTEEN_MINUTES: { value: '15min', description: 'The last 15 minutes, one bucket per minute.' },
    ONE_HOUR: { value: '1hr', description: 'The last hour, one bucket per minute.' },
    ONE_DAY: { value: '1day', description: 'The last day, one bucket per hour.' },
    SEVEN_DAYS: { value: '7day', description: 'The last 7 days, one bucket per day.' },
  } as const,
});

interface InvocationStatsShape {
  readonly timestamp: string;
  readonly minExecutionTime: number | null;
  readonly maxExecutionTime: number | null;
  readonly avgExecutionTime: number | null;
  readonly p95ExecutionTime: number | null;
  readonly p99ExecutionTime: number | null;
  readonly count: number | null;
  readonly errorCount: number | null;
}

const InvocationStatsBucket = builder.objectRef<InvocationStatsShape>('InvocationStatsBucket').implement({
  description:
    'Statistics of the edge-function invocations in one time bucket. Execution-time fields are null for a bucket without invocations.',
  fields: (t) => ({
    timestamp: t.field({
      type: 'DateTime',
      description: 'Start of the bucket.',
      resolve: (bucket) => bucket.timestamp,
    }),
    minExecutionTime: t.int({
      nullable: true,
      description: 'Minimum of execution_time_ms in the bucket.',
      resolve: (bucket) => bucket.minExecutionTime,
    }),
    maxExecutionTime: t.int({
      nullable: true,
      description: 'Maximum of execution_time_ms in the bucket.',
      resolve: (bucket) => bucket.maxExecutionTime,
    }),
    avgExecutionTime: t.float({
      nullable: true,
      description: 'Average of execution_time_ms in the bucket.',
      resolve: (bucket) => bucket.avgExecutionTime,
    }),
    p95ExecutionTime: t.int({
      nullable: true,
      description: 'Element at position 95 of a 100-quantile approximation of execution_time_ms.',
      resolve: (bucket) => bucket.p95ExecutionTime,
    }),
    p99ExecutionTime: t.int({
      nullable: true,
      description: 'Element at position 99 of a 100-quantile approximation of execution_time_ms.',
      resolve: (bucket) => bucket.p99ExecutionTime,
    }),
    count: t.int({
      description: 'Number of records in the bucket.',
      resolve: (bucket) => bucket.count as number,
    }),
    errorCount: t.int({
      description: 'Number of records with response status_code 400 or greater.',
      resolve: (bucket) => bucket.errorCount as number,
    }),
  }),
});

const toBuckets = createRowMapper<InvocationStatsShape>(({ row, typeOf }) => ({
  timestamp: dateTimeText(row.timestamp ?? null, typeOf('timestamp')),
  minExecutionTime: numberValue(row.min_execution_time),
  maxExecutionTime: numberValue(row.max_execution_time),
  avgExecutionTime: numberValue(row.avg_execution_time),
  p95ExecutionTime: numberValue(row.p95_execution_time),
  p99ExecutionTime: numberValue(row.p99_execution_time),
  count: numberValue(row.count),
  errorCount: numberValue(row.error_count),
}));

const FunctionsQueries = builder.objectRef<Record<string, never>>('FunctionsQueries').implement({
  description: 'The saved queries over edge-function logs (endpoints named functions.*).',
  fields: (t) => ({
    invocationStats: t.field({
      type: [InvocationStatsBucket],
      description:
        'Time-bucketed statistics of edge-function invocations of a project (endpoint functions.invocation-stats), one bucket per step of the interval, ordered by timestamp ascending.',
      args: {
        project: t.arg.string({ required: true, description: 'Matched against project_ref of the records.' }),
        interval: t.arg({
          type: InvocationInterval,
          required: true,
          description: 'The window and its bucket size.',
        }),
        functionId: t.arg.string({
          description:
            'When set and non-empty, only records with this function_id are counted. Absent, null or empty means all functions.',
        }),
      },
      resolve: async (_namespace, args, context) =>
        toBuckets(await runEndpoint(context, invocationStatsBinding, args)),
    }),
  }),
});

builder.queryField('functions', (t) =>
  t.field({
    type: FunctionsQueries,
    description: 'Statistics of edge-function invocations.',
    resolve: () => ({}),
  }),
);
