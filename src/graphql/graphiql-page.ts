import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';

const gzipAsync = promisify(gzip);

/** The header GraphiQL must send; the page opens with it in the headers tab, waiting for a value. */
export const apiKeyHeaders = JSON.stringify({ 'X-API-KEY': '' }, null, 2);

/** One tab per saved query, so a newcomer can run each after pasting the key. */
export const exampleTabs = [
  {
    query: /* GraphQL */ `# Recent log records of a project (logs.all).
# Put your key in the Headers tab below and press the run button (Ctrl-Enter).
# Re-fetch the schema (Shift-Ctrl-R) with the key for completion and the docs.
query RecentLogs {
  logs {
    all(project: "default", projectTier: PRO) {
      id
      timestamp
      eventMessage
      metadata
    }
  }
}
`,
  },
  {
    query: /* GraphQL */ `# Edge-function invocation statistics per minute over the last hour (functions.invocation-stats).
query InvocationStats {
  functions {
    invocationStats(project: "default", interval: ONE_HOUR) {
      timestamp
      count
      errorCount
      avgExecutionTime
      p95ExecutionTime
    }
  }
}
`,
  },
  {
    query: /* GraphQL */ `# API requests per area and minute over the last hour (usage.api-counts).
query ApiCounts {
  usage {
    apiCounts(project: "default", interval: MINUTELY) {
      timestamp
      totalRestRequests
      totalStorageRequests
      totalAuthRequests
      totalRealtimeRequests
    }
  }
}
`,
  },
].map((tab) => ({ ...tab, headers: apiKeyHeaders }));

// Yoga's page opens its first tab with `query` (else its own welcome text), so it is the first example too.
export const graphiqlOptions: GraphiQLOptions & { query?: string } = {
  title: 'querygate GraphiQL',
  defaultTabs: exampleTabs,
  query: exampleTabs[0]?.query,
  defaultQuery: exampleTabs[0]?.query,
  headers: apiKeyHeaders,
  defaultHeaders: apiKeyHeaders,
  defaultEditorToolsVisibility: 'headers',
  // The key stays in the page: it is never written to the browser's storage.
  shouldPersistHeaders: false,
};

// GraphiQL inlines its scripts, styles and editor workers (as blob: URLs); it needs nothing from
// another origin, and this policy makes the browser refuse any such load if that ever changes.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The GraphiQL page, rendered by @graphql-yoga/render-graphiql (every asset inlined, nothing
 * from a CDN) once, on first use: it is about 9 MB, so it is kept and sent gzipped when the
 * browser accepts it.
 */
export function createGraphiQLPage(options: GraphiQLOptions = graphiqlOptions) {
  let page: { plain: Buffer; gzipped: Promise<Buffer> } | undefined;
  const load = () => {
    if (!page) {
      const plain = Buffer.from(renderGraphiQL(options), 'utf8');
      page = { plain, gzipped: gzipAsync(plain) };
    }
    return page;
  };
  return {
    /** The page's headers and body, gzipped when the browser accepts it. */
    async load(
      acceptEncoding: string | string[] | undefined,
    ): Promise<{ headers: Record<string, string>; body: Buffer }> {
      const { plain, gzipped } = load();
      const accepted = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
      const compressed = /\bgzip\b/i.test(accepted ?? '');
      const body = compressed ? await gzipped : plain;
      return {
        body,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          ...(compressed ? { 'content-encoding': 'gzip' } : {}),
          // /graphql answers a browser with this page and a client with JSON.
          vary: 'Accept, Accept-Encoding',
          'cache-control': 'no-cache',
          'content-security-policy': contentSecurityPolicy,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
      };
    },
  };
}
