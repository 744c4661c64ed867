import {
  CLIENT_INFO,
  EDGE_ERRORS,
  EDGE_REGIONS,
  EDGE_ROUTES,
  FUNCTION_EVENTS,
  PLACES,
  RELAY_STATUSES,
  USER_AGENTS,
} from './catalog.js';
import type { DemoSource } from './demo-source.js';
import { ipAddress, pick, randomHex, skewed, uuid } from './random.js';

/** Builders of the edge sources: the API gateway's requests and the edge functions' runs. */
export const edgeSources: Record<string, DemoSource> = {
  'cloudflare.logs.prod': {
    rates: [900, 600, 100, 40],
    // Shaped like the edge events Logflare's own samples show (request.cf, request.headers,
    // response.headers, logflare_worker), with the fields Studio's Logs Explorer templates read.
    build: ({ rng, project, timestamp, fill, choose }) => {
      const [method, target, okStatus, originMs] = choose(EDGE_ROUTES);
      const host = `${project}.supabase.co`;
      const url = new URL(`https://${host}${fill(target)}`);
      const status = rng() < 0.05 ? choose(EDGE_ERRORS) : okStatus;
      const [ip, userAgent, ray] = [ipAddress(rng), pick(rng, USER_AGENTS), randomHex(rng, 8)];
      const [country, continent, city, region, colo, timezone, asn] = pick(rng, PLACES);
      const clientInfo = pick(rng, CLIENT_INFO);
      const headers = {
        accept: '*/*',
        cf_connecting_ip: ip,
        cf_ipcountry: country,
        cf_ray: ray,
        content_length: method === 'GET' ? '0' : String(64 + Math.floor(rng() * 4000)),
        host,
        user_agent: userAgent,
        x_client_info: clientInfo === '' ? null : clientInfo,
        x_forwarded_proto: 'https',
        x_real_ip: ip,
      };
      // Public storage objects are cached at the edge; everything else passes through.
      const cacheStatus = url.pathname.startsWith('/storage/v1/object/public')
        ? rng() < 0.6
          ? 'HIT'
          : 'MISS'
        : 'DYNAMIC';
      const bytes = status === 101 ? 0 : 120 + Math.floor(rng() * 20_000);
      const responseHeaders = {
        cf_cache_status: cacheStatus,
        cf_ray: `${ray}-${colo}`,
        content_length: String(bytes),
        content_type: url.pathname.endsWith('.png') ? 'image/png' : 'application/json; charset=utf-8',
        date: new Date(timestamp).toUTCString(),
        sb_gateway_version: '1',
      };
      return {
        event_message: `${method} | ${status} | ${ip} | ${ray} | ${url.href} | ${userAgent}`,
        metadata: {
          request: {
            url: url.href,
            path: url.pathname,
            search: url.search,
            method,
            host,
            protocol: 'https:',
            headers,
            cf: { asn, city, colo, continent, country, region, timezone, httpProtocol: 'HTTP/2' },
          },
          response: { status_code: status, origin_time: skewed(rng, originMs), headers: responseHeaders },
          logflare_worker: { worker_id: randomHex(rng, 3).toUpperCase() },
        },
      };
    },
  },
  'deno-relay-logs': {
    rates: [1800, 300, 40, 12],
    build: ({ rng, project, functions, choose }) => {
      const { slug, method, medianMs, ids } = choose(functions);
      const [status, pathname] = [choose(RELAY_STATUSES), `/functions/v1/${slug}`];
      const host = `${project}.supabase.co`;
      const url = `https://${host}${pathname}`;
      // Cold starts give the long tail that the p95/p99 columns of the stats endpoint exist to show.
      const coldStartMs = rng() < 0.04 ? 200 + Math.floor(rng() * 1500) : 0;
      const region = pick(rng, EDGE_REGIONS);
      return {
        event_message: `${method} | ${status} | ${url}`,
        metadata: {
          project_ref: project,
          ...ids,
          version: ids.deployment_id.split('_').at(-1),
          execution_time_ms: skewed(rng, medianMs) + coldStartMs,
          execution_id: uuid(rng),
          request: {
            method,
            url,
            pathname,
            host,
            protocol: 'https:',
            search: '',
            headers: {
              accept: 'application/json',
              user_agent: pick(rng, USER_AGENTS),
              x_client_info: 'supabase-js/2.45.4',
            },
          },
          response: {
            status_code: status,
            headers: {
              content_type: 'application/json',
              x_sb_edge_region: region,
              x_served_by: 'supabase-edge-runtime',
            },
          },
        },
      };
    },
  },
  'deno-subhosting-events': {
    rates: [240, 60, 10, 4],
    build: ({ rng, project, timestamp, functions, fill, choose }) => {
      const [event_type, level, message] = choose(FUNCTION_EVENTS);
      const fn = choose(functions).ids;
      const metadata = { project_ref: project, ...fn, event_type, level, execution_id: uuid(rng), timestamp };
      return { event_message: fill(message), metadata };
    },
  },
};
