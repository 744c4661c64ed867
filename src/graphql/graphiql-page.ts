import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import { exampleOperations } from './example-operations.js';

const gzipAsync = promisify(gzip);

/** The header GraphiQL must send; the page opens with it in the headers tab, waiting for a value. */
export const apiKeyHeaders = JSON.stringify({ 'X-API-KEY': '' }, null, 2);

/**
 * GraphiQL's options for a snapshot: one example tab per saved query (see example-operations.ts),
 * so a newcomer can run each after pasting the key. Yoga's page opens its first tab with `query`
 * (else its own welcome text), so that is the first example too.
 */
export function graphiqlOptionsFor(snapshot: Snapshot): GraphiQLOptions & { query?: string } {
  const tabs = exampleOperations(snapshot).map((query) => ({ query, headers: apiKeyHeaders }));
  return {
    title: 'querygate GraphiQL',
    defaultTabs: tabs,
    query: tabs[0]?.query,
    defaultQuery: tabs[0]?.query,
    headers: apiKeyHeaders,
    defaultHeaders: apiKeyHeaders,
    defaultEditorToolsVisibility: 'headers',
    // The key stays in the page: it is never written to the browser's storage.
    shouldPersistHeaders: false,
  };
}

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
 * from a CDN) once per snapshot, on first use: it is about 9 MB, so it is kept and sent gzipped
 * when the browser accepts it. A reload renders the next snapshot's page when it is first asked for.
 * The renderer itself is imported on first use too: its module holds the page's script twice
 * (source and string, some 27 MB of heap), which a server no browser visits never needs.
 */
export function createGraphiQLPage(snapshot: () => Snapshot) {
  let page: { for: Snapshot; plain: Buffer; gzipped: Promise<Buffer> } | undefined;
  const load = async () => {
    const current = snapshot();
    if (page?.for !== current) {
      const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
      const plain = Buffer.from(renderGraphiQL(graphiqlOptionsFor(current)), 'utf8');
      page = { for: current, plain, gzipped: gzipAsync(plain) };
    }
    return page;
  };
  return {
    /** The page's headers and body, gzipped when the browser accepts it. */
    async load(
      acceptEncoding: string | string[] | undefined,
    ): Promise<{ headers: Record<string, string>; body: Buffer }> {
      const { plain, gzipped } = await load();
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
