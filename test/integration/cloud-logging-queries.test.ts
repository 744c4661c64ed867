import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDbConnector } from '../../src/backends/duckdb/engine.js';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import type { Querygate } from '../../src/server.js';
import { openDatabase } from '../../src/storage/database.js';
import { importTableFiles } from '../../src/storage/table-import.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import {
  type CloudLoggingFixture,
  createCloudLoggingOracle,
  writeCloudLoggingFixture,
} from '../helpers/cloud-logging-fixture.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import { type QuerygateUnderTest, startQuerygateUnderTest, testApiKey } from '../helpers/querygate-server.js';
import type { Oracle } from '../helpers/warehouse-fixture.js';

// A new user's Cloud Logging warehouse: a sink's audit day tables, its load balancer `requests`
// table and a Log Analytics `_AllLogs` view, declared from Google's schema in
// test/fixtures/cloud-logging/sources.yaml, loaded by `querygate import`'s path, and asked with
// public SQL written by others (each .sql names its source), parameterised as a user would. Each
// answer is compared with plain DuckDB SQL over the same files laid out as BigQuery holds them.
const queriesDir = join(import.meta.dirname, '..', 'fixtures', 'cloud-logging');

let dir: string;
let fixture: CloudLoggingFixture;
let oracle: Oracle;
let server: QuerygateUnderTest;
let harness: BigQueryHarness;
let bigquery: Querygate;

/** The fixture loaded through `querygate import`'s path into a store. */
async function importFixture(database: DuckDbConnector): Promise<void> {
  const { tables } = readSourceDeclarations(queriesDir);
  const table = (name: string) => tables.find((source) => source.name === name) as (typeof tables)[number];
  const connection = await database.connect();
  try {
    await ensureWarehouseTables(connection, tables);
    await importTableFiles(connection, table('audit_activity'), fixture.auditFiles);
    await importTableFiles(connection, table('lb_requests'), [fixture.requestsFile]);
    await importTableFiles(connection, table('all_logs'), [fixture.allLogsFile]);
  } finally {
    connection.closeSync();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-cloud-logging-'));
  fixture = writeCloudLoggingFixture(dir);
  oracle = await createCloudLoggingOracle(fixture);
  server = await startQuerygateUnderTest({
    now: new Date(fixture.now),
    environment: { QUERYGATE_QUERIES_DIR: queriesDir },
    prepare: async (dataDir) => {
      const database = await openDatabase(join(dataDir, 'querygate.duckdb'));
      try {
        await importFixture(database);
      } finally {
        database.close();
      }
    },
  });
  harness = await startBigQueryHarness({
    sources: [],
    warehouseTables: readSourceDeclarations(queriesDir).tables,
  });
  await importFixture(harness.store.database);
  bigquery = await startQuerygateOnBigQuery(harness, { queriesDir });
}, 60_000);

afterAll(async () => {
  await bigquery?.close();
  await harness?.close();
  await server?.close();
  oracle?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** JSON text (a JSON column's REST value) parsed, arrays of ARRAY_AGG(DISTINCT) sorted, floats to 9 places. */
function comparable(value: unknown, sortArrays: boolean): unknown {
  if (typeof value === 'string' && /^[[{]/.test(value)) {
    try {
      return comparable(JSON.parse(value), sortArrays);
    } catch {
      return value;
    }
  }
  if (typeof value === 'number' && !Number.isInteger(value)) return Number(value.toPrecision(9));
  if (Array.isArray(value)) {
    const items = value.map((item) => comparable(item, sortArrays));
    return sortArrays ? items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : items;
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v, sortArrays)]));
  return value;
}

/** getRowObjectsJson writes BIGINT as text, nested too; the few here are small integers. */
function oracleValue(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  if (Array.isArray(value)) return value.map(oracleValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, oracleValue(v)]));
  return value;
}

/** The oracle's rows for plain DuckDB SQL, in the REST answer's value forms. */
async function expectedRows(sql: string): Promise<Record<string, unknown>[]> {
  return (await oracle.rows(sql)).map((row) => oracleValue(row) as Record<string, unknown>);
}

interface Case {
  readonly endpoint: string;
  readonly params: () => Record<string, string>;
  readonly oracle: () => string;
  /** The query fixes no order (or ties): compare as sets. */
  readonly unordered?: boolean;
  /** ARRAY_AGG(DISTINCT ...) columns: BigQuery fixes no element order. */
  readonly sortArrays?: boolean;
}

const days = { first_day: '20240301', last_day: '20240303' };
const us = (column: string) => `epoch_us(${column})`;

const cases: Case[] = [
  {
    endpoint: 'audit.login-failures',
    params: () => ({ ...days, min_attempts: '2' }),
    unordered: true,
    oracle: () => `
      SELECT protopayload_auditlog.authenticationInfo.principalEmail AS principalEmail,
        ${us('min(timestamp)')} AS earliest, ${us('max(timestamp)')} AS latest, count(*) AS attempts
      FROM audit
      WHERE protopayload_auditlog.serviceName = 'login.googleapis.com'
        AND protopayload_auditlog.methodName = 'google.login.LoginService.loginFailure'
      GROUP BY 1 HAVING count(*) >= 2`,
  },
  {
    endpoint: 'audit.firewall-rules-anomaly',
    params: () => ({ now: fixture.now, sigmas: '-1' }),
    unordered: true,
    sortArrays: true,
    oracle: () => `
      WITH d AS (
        SELECT CAST(timestamp AS DATE) AS day,
          list(DISTINCT protopayload_auditlog.methodName) FILTER (WHERE protopayload_auditlog.methodName IS NOT NULL) AS actions,
          list(DISTINCT protopayload_auditlog.authenticationInfo.principalEmail)
            FILTER (WHERE protopayload_auditlog.authenticationInfo.principalEmail IS NOT NULL) AS actors,
          count(*) AS counter
        FROM audit
        WHERE timestamp >= TIMESTAMP '${fixture.now.slice(0, 19)}' - INTERVAL 90 DAY
          AND protopayload_auditlog.methodName LIKE 'v1.compute.firewalls.%'
          AND protopayload_auditlog.methodName NOT IN ('v1.compute.firewalls.list', 'v1.compute.firewalls.get')
        GROUP BY day),
      w AS (
        SELECT *, avg(counter) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS avg,
          stddev_samp(counter) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS stddev,
          count(*) OVER () AS numSamples
        FROM d)
      SELECT CAST(day AS VARCHAR) AS day, coalesce(actions, []) AS actions, coalesce(actors, []) AS actors, counter, avg, stddev, numSamples
      FROM w WHERE counter > avg + (-1) * stddev AND day >= DATE '${fixture.now.slice(0, 10)}' - 7`,
  },
  {
    endpoint: 'audit.api-usage-anomaly',
    params: () => ({ now: fixture.now, sigmas: '-1' }),
    unordered: true,
    sortArrays: true,
    oracle: () => `
      WITH d AS (
        SELECT protopayload_auditlog.authenticationInfo.principalEmail AS principalEmail, CAST(timestamp AS DATE) AS day,
          list(DISTINCT protopayload_auditlog.methodName) FILTER (WHERE protopayload_auditlog.methodName IS NOT NULL) AS actions,
          count(*) AS counter
        FROM audit
        WHERE timestamp >= TIMESTAMP '${fixture.now.slice(0, 19)}' - INTERVAL 60 DAY
          AND protopayload_auditlog.authenticationInfo.principalEmail IS NOT NULL
          AND protopayload_auditlog.methodName NOT LIKE 'storage.%.get'
          AND protopayload_auditlog.methodName NOT LIKE 'v1.compute.%.list'
          AND protopayload_auditlog.methodName NOT LIKE 'beta.compute.%.list'
        GROUP BY 1, 2),
      w AS (
        SELECT *,
          avg(counter) OVER (PARTITION BY principalEmail ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS avg,
          stddev_samp(counter) OVER (PARTITION BY principalEmail ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS stddev,
          count(*) OVER (PARTITION BY principalEmail) AS numSamples
        FROM d)
      SELECT principalEmail, CAST(day AS VARCHAR) AS day, actions, counter, avg, stddev, numSamples
      FROM w WHERE counter > avg + (-1) * stddev AND day >= DATE '${fixture.now.slice(0, 10)}' - 7`,
  },
  {
    endpoint: 'audit.actions-by-identity',
    params: () => ({ now: fixture.now, actor: 'deploy@my-project.iam.gserviceaccount.com' }),
    unordered: true,
    sortArrays: true,
    oracle: () => `
      WITH a AS (
        SELECT timestamp, CAST(timestamp AS DATE) AS day,
          protopayload_auditlog.authenticationInfo.principalEmail AS actor,
          protopayload_auditlog.methodName AS action,
          protopayload_auditlog.resourceName AS resource,
          CASE WHEN len(protopayload_auditlog.authenticationInfo.serviceAccountDelegationInfo) > 0
            THEN protopayload_auditlog.authenticationInfo.serviceAccountDelegationInfo[1].firstPartyPrincipal.principalEmail END AS impersonated_by
        FROM audit
        WHERE protopayload_auditlog.authenticationInfo.principalEmail = 'deploy@my-project.iam.gserviceaccount.com')
      SELECT CAST(day AS VARCHAR) AS day, actor, impersonated_by, action,
        list(DISTINCT resource) FILTER (WHERE resource IS NOT NULL) AS resources, count(*) AS counter,
        ${us('min(timestamp)')} AS earliest_timestamp, ${us('max(timestamp)')} AS latest_timestamp
      FROM a GROUP BY day, actor, action, impersonated_by`,
  },
  {
    endpoint: 'audit.logging-settings-modified',
    params: () => ({ service: 'logging.googleapis.com' }),
    unordered: true,
    oracle: () => `
      SELECT ${us('receiveTimestamp')} AS receiveTimestamp, ${us('timestamp')} AS eventTimestamp,
        protopayload_auditlog.requestMetadata.callerIp AS callerIp,
        protopayload_auditlog.authenticationInfo.principalEmail AS principalEmail,
        protopayload_auditlog.resourceName AS resourceName, protopayload_auditlog.methodName AS methodName
      FROM cloudaudit_googleapis_com_activity_20240302
      WHERE protopayload_auditlog.serviceName = 'logging.googleapis.com'`,
  },
  {
    endpoint: 'lb.cloud-armor-denied',
    params: () => ({ now: fixture.now }),
    oracle: () => `
      SELECT ${us('timestamp')} AS timestamp, httpRequest.remoteIp AS remoteIp, httpRequest.requestMethod AS requestMethod,
        httpRequest.status AS status, jsonpayload_type_loadbalancerlogentry.enforcedsecuritypolicy.name AS name,
        resource.labels.backend_service_name AS backend_service_name, httpRequest.requestUrl AS requestUrl
      FROM requests
      WHERE resource.type = 'http_load_balancer'
        AND jsonpayload_type_loadbalancerlogentry.statusdetails = 'denied_by_security_policy'
      ORDER BY timestamp DESC`,
  },
  {
    endpoint: 'lb.log4j-attempts',
    params: () => ({ now: fixture.now }),
    unordered: true,
    oracle: () => {
      const pattern = `'(?i)(\\$|\\%24)(\\{|\\%7b).*j.*n.*d.*i.*(\\:|\\%3a)'`;
      return `
        SELECT logName, resource, httpRequest, jsonpayload_type_loadbalancerlogentry, ${us('timestamp')} AS timestamp,
          ${us('receiveTimestamp')} AS receiveTimestamp, severity, insertId, NULL AS trace, NULL AS spanId
        FROM requests
        WHERE resource.type = 'http_load_balancer'
          AND (regexp_matches(httpRequest.requestUrl, ${pattern}) OR regexp_matches(httpRequest.userAgent, ${pattern})
            OR regexp_matches(httpRequest.referer, ${pattern}))`;
    },
  },
  {
    endpoint: 'lb.server-error-latency',
    params: () => ({ min_status: '500' }),
    oracle: () => `
      SELECT httpRequest.requestMethod AS http_method, httpRequest.status AS status_code,
        round(avg(CAST(rtrim(httpRequest.latency, 's') AS DOUBLE)), 3) AS avg_latency_sec, count(*) AS request_count
      FROM requests WHERE httpRequest.status >= 500
      GROUP BY 1, 2 ORDER BY request_count DESC, http_method, status_code`,
  },
  {
    // BigQuery documents APPROX_QUANTILES(x, 2) over 1, 1, 1, 4, 5, 6, 7, 8, 9, 10 as [1, 5, 10]:
    // the lower of two middle values, as quantile_disc takes it.
    endpoint: 'lb.latency-quantiles',
    params: () => ({}),
    oracle: () => `
      SELECT generate_subscripts(q, 1) AS percentile, unnest(q) AS time FROM (
        SELECT quantile_disc(CAST(rtrim(httpRequest.latency, 's') AS DOUBLE), [0, 0.25, 0.5, 0.75, 1]) AS q
        FROM requests WHERE httpRequest.latency IS NOT NULL)
      ORDER BY percentile`,
  },
  {
    // 203.0.113.9's /30 is 203.0.113.8 to .11 (the fixture's clients are 203.0.113.1 to .12).
    endpoint: 'lb.clients-in-subnet',
    params: () => ({ ip: '203.0.113.9', prefix: '30' }),
    oracle: () => `
      SELECT '203.0.113.9' AS asked, '203.0.113.8' AS subnet, count(*) AS requests
      FROM requests WHERE httpRequest.remoteIp IN ('203.0.113.8', '203.0.113.9', '203.0.113.10', '203.0.113.11')`,
  },
  {
    endpoint: 'logs.top-error-producers',
    params: () => ({ now: fixture.now }),
    oracle: () => `
      SELECT json_extract_string(resource.labels, '$.service_name') AS service, count(*) AS service_cnt
      FROM all_logs
      WHERE timestamp > TIMESTAMP '${fixture.now.slice(0, 19)}' - INTERVAL 1 DAY
        AND resource.type = 'cloud_run_revision' AND severity = 'ERROR'
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`,
  },
  {
    endpoint: 'logs.high-latency',
    params: () => ({
      min_seconds: '0.5',
      from_time: '2024-03-02T00:00:00Z',
      to_time: '2024-03-03T00:00:00Z',
    }),
    oracle: () => `
      SELECT ${us('timestamp')} AS timestamp, http_request.request_url AS request_url, http_request.latency AS latency
      FROM all_logs
      WHERE resource.type = 'cloud_run_revision' AND http_request.latency.nanos / 1000000000 > 0.5
        AND timestamp BETWEEN TIMESTAMP '2024-03-02 00:00:00' AND TIMESTAMP '2024-03-03 00:00:00'
      ORDER BY timestamp LIMIT 10`,
  },
  {
    endpoint: 'logs.cloud-armor-denied',
    params: () => ({ now: fixture.now }),
    oracle: () => `
      SELECT ${us('timestamp')} AS timestamp, http_request.remote_ip AS remote_ip, http_request.request_method AS request_method,
        http_request.status AS status,
        json_extract_string(json_payload, '$.enforcedSecurityPolicy.name') AS security_policy_name,
        json_extract_string(resource.labels, '$.backend_service_name') AS backend_service_name,
        http_request.request_url AS request_url
      FROM all_logs
      WHERE resource.type = 'http_load_balancer'
        AND json_extract_string(json_payload, '$.statusDetails') = 'denied_by_security_policy'
      ORDER BY timestamp DESC`,
  },
  {
    endpoint: 'logs.backend-traffic-percentage',
    params: () => ({}),
    oracle: () => `
      SELECT http_request.server_ip AS target_ip,
        count(http_request.server_ip) * 100 / (SELECT count(*) FROM all_logs
          WHERE resource.type = 'http_load_balancer' AND http_request.server_ip != '') AS backend_traffic_percentage
      FROM all_logs WHERE resource.type = 'http_load_balancer'
      GROUP BY target_ip ORDER BY backend_traffic_percentage DESC, target_ip`,
  },
  {
    // BigQuery's parser keeps no node for parentheses (ZetaSQL's ASTExpression is only marked
    // `parenthesized`), so `distinct(http_request.remote_ip)` is named remote_ip, not f0_.
    endpoint: 'logs.client-ip-access-times',
    params: () => ({}),
    unordered: true,
    oracle: () => `
      SELECT http_request.remote_ip AS remote_ip, count(*) AS num
      FROM all_logs WHERE resource.type = 'http_load_balancer' GROUP BY 1`,
  },
];

// The JSON functions' cases read the sink's JSON text with DuckDB's own JSON functions (json->>,
// from_json), never through the translator's rules.
cases.push(
  {
    endpoint: 'audit.iap-access-modified',
    params: () => ({ now: fixture.now, role: 'roles/iap.httpsResourceAccessor' }),
    // Two bindings of one entry tie on its timestamp.
    unordered: true,
    oracle: () => `
      WITH b AS (
        SELECT timestamp, resource.type AS type, protopayload_auditlog AS p,
          unnest(from_json(json_extract(protopayload_auditlog.responseJson, '$.bindings'), '["JSON"]')) AS binding
        FROM audit
        WHERE protopayload_auditlog.serviceName = 'iap.googleapis.com'
          AND protopayload_auditlog.methodName LIKE '%.IdentityAwareProxyAdminService.SetIamPolicy')
      SELECT ${us('timestamp')} AS timestamp, p.authenticationInfo.principalEmail AS principalEmail, type,
        p.resourceName AS resourceName, binding->>'role' AS role,
        -- JSON_VALUE_ARRAY: the strings of an array of scalars; NULL (an empty array on the wire) otherwise.
        CASE WHEN json_type(binding->'members') = 'ARRAY'
            AND len(list_filter(from_json(binding->'members', '["JSON"]'), lambda m: json_type(m) IN ('OBJECT', 'ARRAY'))) = 0
          THEN list_transform(from_json(binding->'members', '["JSON"]'), lambda m: json_extract_string(m, '$')) ELSE [] END AS members
      FROM b WHERE binding->>'role' = 'roles/iap.httpsResourceAccessor'
      ORDER BY timestamp DESC`,
  },
  {
    endpoint: 'audit.privileged-group-added',
    params: () => ({ now: fixture.now }),
    unordered: true,
    oracle: () => `
      WITH g AS (
        SELECT timestamp, protopayload_auditlog AS p,
          from_json(json_extract(protopayload_auditlog.metadataJson, '$.event[0].parameter'), '[{"name": "VARCHAR", "value": "VARCHAR"}]') AS params
        FROM audit
        WHERE protopayload_auditlog.serviceName = 'admin.googleapis.com'
          AND protopayload_auditlog.methodName = 'google.admin.AdminService.addGroupMember')
      SELECT ${us('timestamp')} AS timestamp, p.authenticationInfo.principalEmail AS principalEmail, p.methodName AS methodName,
        p.resourceName AS resourceName,
        list_filter(params, x -> x.name = 'USER_EMAIL')[1].value AS userEmail,
        list_filter(params, x -> x.name = 'GROUP_EMAIL')[1].value AS groupEmail
      FROM g WHERE regexp_matches(list_filter(params, x -> x.name = 'GROUP_EMAIL')[1].value, '(admin|prod).*')`,
  },
);

/**
 * audit.entry-json's TO_JSON_STRING texts, exactly: DuckDB's to_json writes these records as
 * BigQuery's JSON encoding does (ASCII strings, integers, nulls, empty arrays); a TIMESTAMP is BigQuery's
 * ISO text in UTC with `T` and `Z`, and these entries' milliseconds as 3 digits (none when 0).
 */
const entryJsonOracle = (day: string) => `
  SELECT insertId, CAST(to_json(protopayload_auditlog.authenticationInfo) AS VARCHAR) AS authentication,
    CAST(to_json(resource.labels) AS VARCHAR) AS labels,
    '{"timestamp":"' || strftime(timestamp, '%Y-%m-%dT%H:%M:%S')
      || CASE WHEN epoch_us(timestamp) % 1000000 = 0 THEN '' ELSE strftime(timestamp, '.%g') END
      || 'Z","severity":' || CAST(to_json(severity) AS VARCHAR)
      || ',"code":' || coalesce(CAST(protopayload_auditlog.status.code AS VARCHAR), 'null') || '}' AS entry
  FROM cloudaudit_googleapis_com_activity_${day}`;

const byInsertId = <T extends { insertId?: unknown }>(rows: readonly T[]): T[] =>
  [...rows].sort((a, b) => (String(a.insertId) < String(b.insertId) ? -1 : 1));

const caseOf = (endpoint: string) => cases.find((testCase) => testCase.endpoint === endpoint) as Case;

/** The parameters of logs.frontend-requests: an hour's window ending after a matching entry. */
async function frontendWindow(): Promise<{ now: string; oracle: string }> {
  const filter = `json_payload IS NOT NULL AND json_payload.message IS NOT NULL
    AND json_extract_string(json_payload, '$.message') = 'request complete'
    AND json_extract_string(resource.labels, '$.pod_name') LIKE 'frontend%'`;
  const [latest] = await oracle.rows(
    `SELECT strftime(max(timestamp) + INTERVAL 30 MINUTE, '%Y-%m-%dT%H:%M:%S.%fZ') AS now FROM all_logs WHERE ${filter}`,
  );
  const now = String(latest?.now);
  return {
    now,
    oracle: `
      SELECT ${us('timestamp')} AS timestamp, log_name, severity, json_payload, resource, labels
      FROM all_logs
      WHERE timestamp > TIMESTAMP '${now.slice(0, 19)}' - INTERVAL 1 HOUR AND ${filter}
      ORDER BY timestamp ASC LIMIT 50`,
  };
}

async function expectOracle(testCase: Pick<Case, 'oracle' | 'unordered' | 'sortArrays'>, rows: unknown[]) {
  const expected = await expectedRows(testCase.oracle());
  expect(expected.length, 'the oracle finds rows for this case').toBeGreaterThan(0);
  const normal = (list: readonly unknown[]) => {
    const mapped = list.map((row) => comparable(row, testCase.sortArrays ?? false));
    return testCase.unordered
      ? mapped.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      : mapped;
  };
  expect(normal(rows)).toEqual(normal(expected));
}

describe('Cloud Logging export queries on the embedded engine', () => {
  it('answers logs.frontend-requests with its JSON columns as the JSON BigQuery holds', async () => {
    const window = await frontendWindow();
    const response = await server.get('/api/endpoints/logs.frontend-requests', {
      now: window.now,
      message: 'request complete',
      pod_prefix: 'frontend',
    });
    expect(response.status, response.text).toBe(200);
    await expectOracle({ oracle: () => window.oracle }, (response.body as { result: unknown[] }).result);
  });

  for (const testCase of cases) {
    it(`answers ${testCase.endpoint} over REST as plain DuckDB over the tables BigQuery holds`, async () => {
      const response = await server.get(`/api/endpoints/${testCase.endpoint}`, testCase.params());
      expect(response.status, response.text).toBe(200);
      await expectOracle(testCase, (response.body as { result: unknown[] }).result);
    });
  }

  it('writes TO_JSON_STRING of records as BigQuery writes them, text for text, over REST and GraphQL', async () => {
    const expected = byInsertId(await oracle.rows(entryJsonOracle('20240302')));
    const response = await server.get('/api/endpoints/audit.entry-json', { day: '20240302' });
    expect(response.status, response.text).toBe(200);
    expect(byInsertId((response.body as { result: Record<string, unknown>[] }).result)).toEqual(expected);
    const answer = await postGraphQL<{
      audit: { entryJson: { insertId: string; authentication: string; labels: string; entry: string }[] };
    }>(server, '{ audit { entryJson(day: "20240302") { insertId authentication labels entry } } }');
    expect(answer.errors).toEqual([]);
    expect(byInsertId(answer.data?.audit.entryJson ?? [])).toEqual(expected);
  });
});

describe('Cloud Logging export queries on GraphQL and OpenAPI', () => {
  it('answers GraphQL with the oracle rows, JSON columns under the JSON scalar', async () => {
    const window = await frontendWindow();
    const answer = await postGraphQL<{
      audit: { firewallRulesAnomaly: { day: string; counter: string; avg: number; numSamples: string }[] };
      lb: { latencyQuantiles: { percentile: string; time: number }[] };
      logs: {
        frontendRequests: { timestamp: string; jsonPayload: unknown; resource: { labels: unknown } }[];
      };
    }>(
      server,
      `{ audit { firewallRulesAnomaly(now: "${fixture.now}", sigmas: -1) { day counter avg numSamples } }
         lb { latencyQuantiles { percentile time } }
         logs { frontendRequests(now: "${window.now}", message: "request complete", podPrefix: "frontend") {
           timestamp jsonPayload resource { labels } } } }`,
    );
    expect(answer.errors).toEqual([]);
    const anomalies = await expectedRows(caseOf('audit.firewall-rules-anomaly').oracle());
    expect(
      answer.data?.audit.firewallRulesAnomaly.map((row) => [row.day, Number(row.counter), row.avg]),
    ).toEqual(anomalies.map((row) => [row.day, row.counter, row.avg]));
    const quantiles = await expectedRows(caseOf('lb.latency-quantiles').oracle());
    expect(answer.data?.lb.latencyQuantiles).toEqual(
      quantiles.map((row) => ({ percentile: String(row.percentile), time: row.time })),
    );
    const requests = await expectedRows(window.oracle);
    expect(
      answer.data?.logs.frontendRequests.map((row) =>
        comparable([row.jsonPayload, row.resource.labels], false),
      ),
    ).toEqual(
      requests.map((row) =>
        comparable([row.json_payload, (row.resource as { labels: unknown }).labels], false),
      ),
    );
  });

  it('describes every endpoint in OpenAPI, JSON columns as any value, and each answer fits its schema', async () => {
    const document = (await server.get('/openapi.json')).body as {
      components: {
        schemas: Record<
          string,
          { properties: { result: { items: { properties: Record<string, unknown> } } } }
        >;
      };
    };
    expect(await openApiProblems(document)).toEqual([]);
    const columns =
      document.components.schemas.logsFrontendRequestsResult?.properties.result.items.properties;
    expect(columns?.json_payload).not.toHaveProperty('type');
    expect(columns?.timestamp).toEqual(expect.objectContaining({ format: 'int64' }));
    const { called, problems, rows } = await callEveryOperation(
      document,
      async (path, params) => {
        const response = await server.get(`${path}?${new URLSearchParams(params)}`);
        return { status: response.status, body: response.body };
      },
      { now: fixture.now },
    );
    expect(problems).toEqual([]);
    expect(called).toContain('logsCloudArmorDenied');
    expect(rows).toBeGreaterThan(0);
  });

  it('refuses over HTTP an audit row without its day-table suffix, as the BigQuery backend does, storing nothing', async () => {
    const row = {
      logName: 'projects/my-project/logs/cloudaudit.googleapis.com%2Factivity',
      severity: 'NOTICE',
    };
    for (const url of [server.url, bigquery.url]) {
      const response = await fetch(new URL('/api/logs?source_name=audit_activity', url), {
        method: 'POST',
        headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: [{ ...row, table_day: '20240301' }, row] }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /^Row 1, column table_day: names the day table of my-project.logs.cloudaudit_googleapis_com_activity_\* \(its _TABLE_SUFFIX\)/,
      );
    }
    const count = await server.get('/api/endpoints/audit.login-failures', { ...days, min_attempts: '0' });
    const attempts = (count.body as { result: { attempts: number }[] }).result.reduce(
      (sum, r) => sum + r.attempts,
      0,
    );
    expect(attempts).toBe(
      Number(
        (
          await oracle.rows(
            `SELECT count(*) AS n FROM audit WHERE protopayload_auditlog.methodName = 'google.login.LoginService.loginFailure' AND protopayload_auditlog.serviceName = 'login.googleapis.com'`,
          )
        )[0]?.n,
      ),
    );
  });

  it('answers 400 naming ip when NET.IP_FROM_STRING(@ip) cannot read it, in BigQuery’s words', async () => {
    // glibc's inet_pton, which BigQuery's NET.IP_FROM_STRING calls, refuses an octet with a
    // leading zero; net.cc's error quotes the text.
    const response = await server.get('/api/endpoints/lb.clients-in-subnet', {
      ip: '203.0.113.09',
      prefix: '30',
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: 'BAD_PARAMETER',
        message: expect.stringMatching(
          /^Parameter 'ip' is 203\.0\.113\.09, .*: NET\.IP_FROM_STRING\(\) encountered an unparseable IP-address: 203\.0\.113\.09$/,
        ),
      },
    });
  });

  it('refuses at load the SQL DuckDB cannot answer as BigQuery does, naming SEARCH', async () => {
    const health = await server.get('/health');
    expect((health.body as { refused: unknown[] }).refused).toEqual([
      expect.objectContaining({
        endpoint: 'logs.frontend-latency-by-hour',
        line: 19,
        // Named, with what to write instead: the field compared, or a word matched.
        reason: expect.stringMatching(
          /function SEARCH has no DuckDB rule .*compare the field searched instead, e\.g\. JSON_VALUE\(json_payload\.message\) = 'request complete'/,
        ),
      }),
    ]);
    // Its author calling it hears why, not a 404 that reads like a misspelt name.
    const call = await server.get('/api/endpoints/logs.frontend-latency-by-hour', { now: fixture.now });
    expect(call.status).toBe(404);
    expect((call.body as { error: { message: string } }).error.message).toMatch(
      /^Endpoint 'logs.frontend-latency-by-hour' is not served: it was refused when the queries loaded \(logs.frontend-latency-by-hour.sql:19:7: .*function SEARCH has no DuckDB rule/,
    );
  });
});

describe('Cloud Logging export queries on BigQuery (the fake)', () => {
  it('answers logs.frontend-requests with its JSON columns as the JSON BigQuery holds', async () => {
    const window = await frontendWindow();
    const url = new URL('/api/endpoints/logs.frontend-requests', bigquery.url);
    url.search = new URLSearchParams({
      now: window.now,
      message: 'request complete',
      pod_prefix: 'frontend',
    }).toString();
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    await expectOracle({ oracle: () => window.oracle }, (JSON.parse(text) as { result: unknown[] }).result);
  });

  for (const testCase of cases) {
    it(`answers ${testCase.endpoint} over REST as plain DuckDB over the tables BigQuery holds`, async () => {
      const url = new URL(`/api/endpoints/${testCase.endpoint}`, bigquery.url);
      for (const [name, value] of Object.entries(testCase.params())) url.searchParams.set(name, value);
      const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      await expectOracle(testCase, (JSON.parse(text) as { result: unknown[] }).result);
    });
  }

  it('writes TO_JSON_STRING of records as BigQuery writes them, text for text', async () => {
    const url = new URL('/api/endpoints/audit.entry-json', bigquery.url);
    url.searchParams.set('day', '20240302');
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const rows = (JSON.parse(text) as { result: Record<string, unknown>[] }).result;
    expect(byInsertId(rows)).toEqual(byInsertId(await oracle.rows(entryJsonOracle('20240302'))));
  });
});
