import { describe, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import { useQuerygateOnBigQueryPerTest } from '../helpers/bigquery-harness.js';
import { leaksInternals, testApiKey } from '../helpers/querygate-server.js';

// BigQuery's failures as a REST client sees them: the real server on the BigQuery engine against
// the fake, each failure made by one of the fake's knobs, answered with its status and
// `{"error": {"code", "message"}}`, never a stack trace.

const start = useQuerygateOnBigQueryPerTest();

/** GET logs.all, which is never cached: every call runs a job. */
async function callLogsAll(service: Querygate) {
  const response = await fetch(new URL('/api/endpoints/logs.all?project=p1&project_tier=FREE', service.url), {
    headers: { 'x-api-key': testApiKey },
  });
  const text = await response.text();
  return {
    status: response.status,
    body: JSON.parse(text) as unknown,
    leaksStackTrace: leaksInternals(text),
  };
}

describe('BigQuery failures over REST', () => {
  it('answers 400 BAD_REQUEST naming the cap when the job would bill more than maximumBytesBilled', async () => {
    const { harness, app } = await start({ QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '1000000' });
    harness.fake.bytesProcessed = 5_000_000;
    expect(await callLogsAll(app)).toEqual({
      status: 400,
      body: {
        error: {
          code: 'BAD_REQUEST',
          message:
            'logs.all would bill more bytes than its cap of 1000000 bytes (maximumBytesBilled): ' +
            'Query exceeded limit for bytes billed: 1000000. 5000000 or higher required.',
        },
      },
      leaksStackTrace: false,
    });
  });

  it.each([
    ['rateLimitExceeded', 'Exceeded rate limits: too many concurrent queries for this project_and_region.'],
    ['quotaExceeded', 'Quota exceeded: Your project exceeded quota for free query bytes scanned.'],
  ])('answers 429 RATE_LIMITED when BigQuery says %s', async (reason, message) => {
    const { harness, app } = await start();
    harness.fake.inject({ api: 'jobs.insert', status: 403, reason, message });
    expect(await callLogsAll(app)).toEqual({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: `logs.all: BigQuery is rate limiting: ${message}` } },
      leaksStackTrace: false,
    });
  });

  it("answers 502 ENGINE_ERROR with BigQuery's message for an invalid query", async () => {
    const { harness, app } = await start();
    harness.fake.inject({
      api: 'jobs.insert',
      status: 400,
      reason: 'invalidQuery',
      message: 'Unrecognized name: no_such_column at [12:5]',
    });
    expect(await callLogsAll(app)).toEqual({
      status: 502,
      body: {
        error: {
          code: 'ENGINE_ERROR',
          message: 'logs.all is not a valid BigQuery query: Unrecognized name: no_such_column at [12:5]',
        },
      },
      leaksStackTrace: false,
    });
  });

  it('answers 502 ENGINE_ERROR with a credentials hint when BigQuery denies permission', async () => {
    const { harness, app } = await start();
    const denied =
      'Access Denied: Project querygate-test: User does not have bigquery.jobs.create permission in project querygate-test.';
    harness.fake.inject({ api: 'jobs.insert', status: 403, reason: 'accessDenied', message: denied });
    expect(await callLogsAll(app)).toEqual({
      status: 502,
      body: {
        error: {
          code: 'ENGINE_ERROR',
          message:
            `logs.all: BigQuery refused access: ${denied}; check the credentials querygate runs with ` +
            '(GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`): they need ' +
            'roles/bigquery.jobUser on the project and roles/bigquery.dataViewer on the dataset',
        },
      },
      leaksStackTrace: false,
    });
  });

  it('answers 504 ENGINE_TIMEOUT when the job outlasts the job timeout', async () => {
    const { harness, app } = await start({ QUERYGATE_BIGQUERY_TIMEOUT_MS: '300' });
    harness.fake.queryDelayMs = 60_000;
    expect(await callLogsAll(app)).toEqual({
      status: 504,
      body: {
        error: {
          code: 'ENGINE_TIMEOUT',
          message: 'logs.all did not finish within 300 ms; its BigQuery job was cancelled',
        },
      },
      leaksStackTrace: false,
    });
  });
});
