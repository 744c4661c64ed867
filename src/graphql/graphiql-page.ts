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

/**
 * What the page runs before GraphiQL: the key of the address's fragment (`/graphql#key=...`,
 * the link querygate prints when it made the key; a fragment never travels to the server) goes
 * into every tab's headers and out of the address bar; and the server's 401, which GraphiQL
 * would show as a dump of its introspection request, is one GraphQL error saying what to do.
 */
const keyScript = `<script>
(function () {
  var match = /(?:^#|&)key=([^&]*)/.exec(window.location.hash);
  var key = match ? decodeURIComponent(match[1]) : '';
  if (match) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  window.querygateOptions = function (options) {
    if (!key) return options;
    var headers = JSON.stringify({ 'X-API-KEY': key }, null, 2);
    return Object.assign({}, options, {
      headers: headers,
      defaultHeaders: headers,
      defaultTabs: (options.defaultTabs || []).map(function (tab) {
        return Object.assign({}, tab, { headers: headers });
      }),
    });
  };
  var fetchWithoutHint = window.fetch.bind(window);
  window.fetch = function (input, init) {
    return fetchWithoutHint(input, init).then(function (response) {
      if (response.status !== 401) return response;
      var message = 'No valid API key: put it in the Headers tab as {"X-API-KEY": "<key>"}, or open the GraphiQL link querygate printed when it made the key';
      return new Response(JSON.stringify({ errors: [{ message: message }] }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    });
  };
})();
</script>`;

/**
 * Yoga's GraphiQL page with {@link keyScript} run first and the options passed through it. Both
 * edits are checked: a page of another version of the renderer that they do not fit is an error
 * at first use, not a page that silently ignores the key.
 */
function withKeyScript(render: (options: GraphiQLOptions) => string, options: GraphiQLOptions): string {
  const html = render(options);
  const json = JSON.stringify(options);
  if (html.split(json).length !== 2 || !html.includes('<head>'))
    throw new Error('the GraphiQL page does not have the shape querygate adds its key script to');
  return html
    .replace('<head>', () => `<head>${keyScript}`)
    .replace(json, () => `window.querygateOptions(${json})`);
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
      const plain = Buffer.from(withKeyScript(renderGraphiQL, graphiqlOptionsFor(current)), 'utf8');
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
