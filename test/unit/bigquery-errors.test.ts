import { describe, expect, it } from 'vitest';
import { toQuerygateError } from '../../src/backends/bigquery/errors.js';

/** An error shaped as @google-cloud/common's ApiError for a Google JSON error body. */
function apiError(code: number | undefined, reason: string, message: string) {
  return Object.assign(new Error(`${message}\n    at Object.somewhere (file.js:1:1)`), {
    code,
    errors: [{ reason, message, domain: 'global' }],
  });
}

describe('BigQuery errors in querygate codes', () => {
  it('maps an invalid query to ENGINE_ERROR (502) with BigQuery message', () => {
    const error = toQuerygateError(apiError(400, 'invalidQuery', 'Syntax error: Unexpected ")" at [3:4]'), {
      subject: 'logs.all',
    });
    expect(error.code).toBe('ENGINE_ERROR');
    expect(error.status).toBe(502);
    expect(error.message).toBe(
      'logs.all is not a valid BigQuery query: Syntax error: Unexpected ")" at [3:4]',
    );
  });

  it('maps the bytes cap to BAD_REQUEST (400) naming the cap', () => {
    const error = toQuerygateError(
      apiError(
        400,
        'bytesBilledLimitExceeded',
        'Query exceeded limit for bytes billed: 1000. 10485760 or higher required.',
      ),
      { subject: 'usage.api-counts', maximumBytesBilled: '1000' },
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.status).toBe(400);
    expect(error.message).toContain('cap of 1000 bytes');
    expect(error.message).toContain('10485760 or higher required');
  });

  it('maps rate limits and quotas (403 with their reasons, or 429) to RATE_LIMITED', () => {
    for (const error of [
      apiError(403, 'rateLimitExceeded', 'Exceeded rate limits: too many concurrent queries'),
      apiError(
        403,
        'quotaExceeded',
        'Quota exceeded: Your project exceeded quota for free query bytes scanned',
      ),
      apiError(429, 'tooManyRequests', 'Too many requests'),
    ]) {
      const mapped = toQuerygateError(error, { subject: 'logs.all' });
      expect(mapped.code).toBe('RATE_LIMITED');
      expect(mapped.status).toBe(429);
    }
  });

  it('maps access denied and missing credentials to ENGINE_ERROR with a hint about GOOGLE_APPLICATION_CREDENTIALS', () => {
    for (const error of [
      apiError(
        403,
        'accessDenied',
        'Access Denied: Project acme: User does not have bigquery.jobs.create permission',
      ),
      apiError(401, 'unauthorized', 'Request had invalid authentication credentials.'),
      new Error(
        'Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication',
      ),
    ]) {
      const mapped = toQuerygateError(error, { subject: 'logs.all' });
      expect(mapped.code).toBe('ENGINE_ERROR');
      expect(mapped.message).toContain('GOOGLE_APPLICATION_CREDENTIALS');
    }
  });

  it("maps the job's own timeout to ENGINE_TIMEOUT (504)", () => {
    const mapped = toQuerygateError(apiError(400, 'timeout', 'Job timed out after 25 sec'), {
      subject: 'logs.all',
    });
    expect(mapped.code).toBe('ENGINE_TIMEOUT');
    expect(mapped.status).toBe(504);
  });

  it('never carries a stack trace, only the first line of the message', () => {
    const mapped = toQuerygateError(apiError(500, 'backendError', 'Backend error'), { subject: 'logs.all' });
    expect(mapped.code).toBe('ENGINE_ERROR');
    expect(mapped.message).toBe('logs.all failed on BigQuery: Backend error');
    expect(mapped.message).not.toMatch(/\n|\bat .*:\d+:\d+/);
  });
});
