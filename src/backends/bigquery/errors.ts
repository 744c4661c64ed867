import { QuerygateError } from '../../errors.js';

/**
 * BigQuery's failures in querygate's codes. BigQuery names a failure by the `reason` of its
 * ErrorProto (https://cloud.google.com/bigquery/docs/error-messages); the client library hands
 * it over as an ApiError whose `errors` hold those protos and whose `code` is the HTTP status.
 * Messages carry BigQuery's own text (first line only), never a stack trace.
 */

export interface BigQueryFailureContext {
  /** What failed, e.g. `logs.all` or `inserting into p.d.t`, to start the message with. */
  readonly subject: string;
  /** The job's maximumBytesBilled, named when BigQuery refuses to bill more. */
  readonly maximumBytesBilled?: string | undefined;
}

interface ApiErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly errors?: ReadonlyArray<{ readonly reason?: unknown; readonly message?: unknown }>;
}

/** The first `reason` BigQuery gave, if any. */
export function bigQueryReason(error: unknown): string | undefined {
  const errors = (error as ApiErrorLike | null)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const found = errors.find((item) => typeof item?.reason === 'string');
  return found?.reason as string | undefined;
}

/** The HTTP status of an ApiError, if it has one. */
export function bigQueryStatus(error: unknown): number | undefined {
  const code = (error as ApiErrorLike | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** BigQuery's own words: the message of the first error proto, else the error's, first line only. */
export function bigQueryMessage(error: unknown): string {
  const errors = (error as ApiErrorLike | null)?.errors;
  const proto = Array.isArray(errors) ? errors.find((item) => typeof item?.message === 'string') : undefined;
  const message = proto?.message ?? (error as ApiErrorLike | null)?.message ?? String(error);
  return String(message).split('\n')[0]?.trim() || 'no message';
}

const rateReasons = new Set(['rateLimitExceeded', 'quotaExceeded', 'userRateLimitExceeded']);
const accessReasons = new Set([
  'accessDenied',
  'forbidden',
  'unauthorized',
  'authError',
  'invalidCredentials',
]);

export const credentialsHint =
  'check the credentials querygate runs with (GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth ' +
  'application-default login`): they need roles/bigquery.jobUser on the project and ' +
  'roles/bigquery.dataViewer on the dataset';

/** Whether the client library could not find or use any credentials at all. */
function isMissingCredentials(error: unknown): boolean {
  const message = String((error as ApiErrorLike | null)?.message ?? '');
  // google-auth-library's wording, which @google-cloud/common itself matches on.
  return message.includes('Could not load the default credentials');
}

/**
 * Maps a failure of a BigQuery call: invalid query → ENGINE_ERROR (502) with BigQuery's message;
 * bytes cap → BAD_REQUEST (400) naming the cap; quota or rate → RATE_LIMITED (429); the job's own
 * timeout → ENGINE_TIMEOUT (504); auth or permission → ENGINE_ERROR with a hint about credentials.
 */
export function toQuerygateError(error: unknown, context: BigQueryFailureContext): QuerygateError {
  const reason = bigQueryReason(error);
  const status = bigQueryStatus(error);
  const message = bigQueryMessage(error);
  const { subject } = context;
  if (reason === 'bytesBilledLimitExceeded') {
    const cap = context.maximumBytesBilled;
    return new QuerygateError(
      'BAD_REQUEST',
      `${subject} would bill more bytes than its cap${cap ? ` of ${cap} bytes` : ''} (maximumBytesBilled): ${message}`,
      { cause: error, details: { maximumBytesBilled: cap ?? null } },
    );
  }
  if ((reason !== undefined && rateReasons.has(reason)) || status === 429) {
    return new QuerygateError('RATE_LIMITED', `${subject}: BigQuery is rate limiting: ${message}`, {
      cause: error,
    });
  }
  if (reason === 'timeout') {
    return new QuerygateError('ENGINE_TIMEOUT', `${subject} timed out on BigQuery: ${message}`, {
      cause: error,
    });
  }
  if (
    isMissingCredentials(error) ||
    (reason !== undefined && accessReasons.has(reason)) ||
    status === 401 ||
    status === 403
  ) {
    return new QuerygateError(
      'ENGINE_ERROR',
      `${subject}: BigQuery refused access: ${message}; ${credentialsHint}`,
      {
        cause: error,
      },
    );
  }
  if (reason === 'invalidQuery' || reason === 'invalid') {
    return new QuerygateError('ENGINE_ERROR', `${subject} is not a valid BigQuery query: ${message}`, {
      cause: error,
    });
  }
  return new QuerygateError('ENGINE_ERROR', `${subject} failed on BigQuery: ${message}`, { cause: error });
}
