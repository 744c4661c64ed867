import { builder } from './builder.js';
import { type EndpointBinding, runEndpoint } from './endpoint-field.js';
import { createRowMapper, numberValue } from './result-rows.js';
import { dateTimeText } from './scalars.js';

/** `usage.api-counts` on this face: GraphQL argument → contract parameter. */
export const apiCountsBinding: EndpointBinding = {
  endpoint: 'usage.api-counts',
  arguments: { project: 'project', interval: 'interval' },
};

export const UsageInterval = builder.enumType('UsageInterval', {
  description: 'The window of usage.apiCounts and the size of its buckets.',
  values: {
    MINUTELY: { value: 'minutely', description: 'The last 60 minutes, one bucket per minute.' },
    HOURLY: { value: 'hourly', description: 'The last hour, one bucket per hour.' },
    DAILY: { value: 'daily', description: 'The last 7 days, one bucket per day.' },
  } as const,
});

interface ApiCountsShape {
  readonly timestamp: string;
  readonly totalRestRequests: number | null;
  readonly totalStorageRequests: number | null;
  readonly totalAuthRequests: number | null;
  readonly totalRealtimeRequests: number | null;
}

const ApiCountsBucket = builder.objectRef<ApiCountsShape>('ApiCountsBucket').implement({
  description:
    'Counts of API requests in one time bucket. A request counts in every column whose path fragment its path contains.',
  fields: (t) => ({
    timestamp: t.field({
      type: 'DateTime',
      description: 'Bucket start, in UTC.',
      resolve: (bucket) => bucket.timestamp,
    }),
    totalRestRequests: t.int({
      description: 'Requests whose path contains /rest.',
      resolve: (bucket) => bucket.totalRestRequests as number,
    }),
    totalStorageRequests: t.int({
      description: 'Requests whose path contains /storage.',
      resolve: (bucket) => bucket.totalStorageRequests as number,
    }),
    totalAuthRequests: t.int({
      description: 'Requests whose path contains /auth.',
      resolve: (bucket) => bucket.totalAuthRequests as number,
    }),
    totalRealtimeRequests: t.int({
      description: 'Requests whose path contains /realtime.',
      resolve: (bucket) => bucket.totalRealtimeRequests as number,
    }),
  }),
});

const toBuckets = createRowMapper<ApiCountsShape>(({ row, typeOf }) => ({
  timestamp: dateTimeText(row.timestamp ?? null, typeOf('timestamp')),
  totalRestRequests: numberValue(row.total_rest_requests),
  totalStorageRequests: numberValue(row.total_storage_requests),
  totalAuthRequests: numberValue(row.total_auth_requests),
  totalRealtimeRequests: numberValue(row.total_realtime_requests),
}));

const UsageQueries = builder.objectRef<Record<string, never>>('UsageQueries').implement({
  description: 'The saved queries over API usage (endpoints named usage.*).',
  fields: (t) => ({
    apiCounts: t.field({
      type: [ApiCountsBucket],
      description:
        'Time-bucketed counts of API requests per API area (endpoint usage.api-counts) over the edge request logs whose url matches project, ordered by timestamp ascending.',
      args: {
        project: t.arg.string({
          required: true,
          description: 'RE2 regular expression; a request counts when its url contains a match.',
        }),
        interval: t.arg({
          type: UsageInterval,
          required: true,
          description: 'The window and its bucket size.',
        }),
      },
      resolve: async (_namespace, args, context) =>
        toBuckets(await runEndpoint(context, apiCountsBinding, args)),
    }),
  }),
});

builder.queryField('usage', (t) =>
  t.field({
    type: UsageQueries,
    description: 'Counts of API requests.',
    resolve: () => ({}),
  }),
);
