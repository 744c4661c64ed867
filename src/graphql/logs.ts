import { builder } from './builder.js';
import { type EndpointBinding, runEndpoint } from './endpoint-field.js';
import { createRowMapper, textValue } from './result-rows.js';
import { dateTimeText, jsonValue } from './scalars.js';

/** `logs.all` on this face: GraphQL argument → contract parameter. */
export const logsAllBinding: EndpointBinding = {
  endpoint: 'logs.all',
  arguments: {
    project: 'project',
    projectTier: 'project_tier',
    isoTimestampStart: 'iso_timestamp_start',
    isoTimestampEnd: 'iso_timestamp_end',
  },
};

export const ProjectTier = builder.enumType('ProjectTier', {
  description: 'Selects the retention window of logs.all: only records newer than the window are returned.',
  values: {
    FREE: { value: 'FREE', description: 'Records newer than 1 day before now.' },
    PRO: { value: 'PRO', description: 'Records newer than 7 days before now.' },
    PAYG: { value: 'PAYG', description: 'Records newer than 90 days before now.' },
    ENTERPRISE: { value: 'ENTERPRISE', description: 'Records newer than 90 days before now.' },
  } as const,
});

interface LogRecordShape {
  readonly id: string | null;
  readonly timestamp: string;
  readonly eventMessage: string | null;
  readonly metadata: unknown;
}

const LogRecord = builder.objectRef<LogRecordShape>('LogRecord').implement({
  description: 'One log record of the edge request log source.',
  fields: (t) => ({
    id: t.string({ description: 'Record identifier.', resolve: (record) => record.id as string }),
    timestamp: t.field({
      type: 'DateTime',
      description: 'Record time.',
      resolve: (record) => record.timestamp,
    }),
    eventMessage: t.string({
      description: 'Message text.',
      resolve: (record) => record.eventMessage as string,
    }),
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'Nested metadata of the record: a repeated record, so every nested object is a list of objects, as Logflare returns it.',
      resolve: (record) => record.metadata,
    }),
  }),
});

const toLogRecords = createRowMapper<LogRecordShape>(({ row, typeOf }) => ({
  id: textValue(row.id),
  timestamp: dateTimeText(row.timestamp ?? null, typeOf('timestamp')),
  eventMessage: textValue(row.event_message),
  metadata: jsonValue(row.metadata ?? null),
}));

const LogsQueries = builder.objectRef<Record<string, never>>('LogsQueries').implement({
  description: 'The saved queries over log records (endpoints named logs.*).',
  fields: (t) => ({
    all: t.field({
      type: [LogRecord],
      description:
        "Recent log records of a project (endpoint logs.all): the edge request logs of the project newer than the tier's retention window, after isoTimestampStart and at or before isoTimestampEnd when set, newest first, at most 100.",
      args: {
        project: t.arg.string({ required: true, description: 'Project whose records are read.' }),
        projectTier: t.arg({
          type: ProjectTier,
          required: true,
          description: 'Selects the retention window: FREE 1 day, PRO 7 days, PAYG and ENTERPRISE 90 days.',
        }),
        isoTimestampStart: t.arg({
          type: 'DateTime',
          description: 'Exclusive lower bound on record time. Absent or null means no lower bound.',
        }),
        isoTimestampEnd: t.arg({
          type: 'DateTime',
          description: 'Inclusive upper bound on record time. Absent or null means no upper bound.',
        }),
      },
      resolve: async (_namespace, args, context) =>
        toLogRecords(await runEndpoint(context, logsAllBinding, args)),
    }),
  }),
});

builder.queryField('logs', (t) =>
  t.field({
    type: LogsQueries,
    description: 'Log records of a project.',
    resolve: () => ({}),
  }),
);
