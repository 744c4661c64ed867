import { GraphQLError } from 'graphql';

/**
 * Every failure a client can see has one of these codes. REST maps a code to its HTTP status,
 * GraphQL carries it in `extensions.code`: the same failure reads the same on both faces.
 */
export const errorStatus = {
  BAD_PARAMETER: 400,
  BAD_REQUEST: 400,
  /** Saved SQL using a construct the DuckDB translator has no rule for; refused when it loads. */
  UNSUPPORTED_SQL: 400,
  /** A sandboxed call's `sql` refused (README, "Sandboxed endpoints"): one code per rule. */
  SANDBOX_INVALID_SQL: 400,
  SANDBOX_NOT_ONE_STATEMENT: 400,
  SANDBOX_NOT_SELECT: 400,
  SANDBOX_WILDCARD: 400,
  SANDBOX_TABLE_NOT_CTE: 400,
  SANDBOX_CTE_NAME_TAKEN: 400,
  SANDBOX_RESTRICTED_FUNCTION: 400,
  /** A sandboxed call's query needed more memory than the engine may give one call. */
  SANDBOX_TOO_EXPENSIVE: 400,
  /**
   * A run stopped on the query's own error, in BigQuery's words (a division by zero, an array index
   * out of bounds, ERROR()): BigQuery's invalidQuery at run time, its HTTP 400 too.
   */
  INVALID_QUERY: 400,
  UNAUTHENTICATED: 401,
  /** A valid key without the scope the route needs (an ingest-only key on a query route). */
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** An `Expect` header other than 100-continue. */
  EXPECTATION_FAILED: 417,
  /** The request line and headers beyond Node's limit (a query string of tens of kilobytes). */
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  ENGINE_ERROR: 502,
  /**
   * A result value the field's type cannot hold (an INT64 beyond a field declared 32-bit): a
   * GraphQL field error under HTTP 200; REST returns every value whole, so never answers it.
   */
  VALUE_OUT_OF_RANGE: 502,
  NOT_READY: 503,
  ENGINE_BUSY: 503,
  ENGINE_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface QuerygateErrorOptions {
  cause?: unknown;
  /** Machine-readable facts about the failure, e.g. `{ parameter: 'interval' }` or `{ index: 3 }`. */
  details?: Record<string, unknown>;
}

/** The one error type of querygate: a GraphQLError so yoga shows it unmasked, with a code and status. */
export class QuerygateError extends GraphQLError {
  override readonly name = 'QuerygateError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: QuerygateErrorOptions = {}) {
    const status = errorStatus[code];
    const retryAfter = options.details?.retryAfterSeconds;
    // Yoga sends `http.headers` with the response, so GraphQL clients get Retry-After as REST's do.
    const http =
      typeof retryAfter === 'number'
        ? { status, headers: { 'retry-after': String(retryAfter) } }
        : { status };
    super(message, {
      originalError: options.cause instanceof Error ? options.cause : undefined,
      extensions: { code, http, ...(options.details ?? {}) },
    });
    this.code = code;
    this.status = status;
    this.details = options.details;
  }
}

/** Recognises our errors by name and code, not `instanceof`, so copies across module graphs still match. */
export function isQuerygateError(error: unknown): error is QuerygateError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'QuerygateError' &&
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { code: string }).code in errorStatus
  );
}

export function badParameter(parameter: string, message: string): QuerygateError {
  return new QuerygateError('BAD_PARAMETER', `Parameter '${parameter}' ${message}`, {
    details: { parameter },
  });
}
