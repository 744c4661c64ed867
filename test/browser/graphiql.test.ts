import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { type QuerygateUnderTest, startQuerygateUnderTest } from '../helpers/querygate-server.js';
import { expectedLogsAll } from '../helpers/spec-expectations.js';

/**
 * GraphiQL in a real browser with no network beyond loopback: Debian's Chromium, driven by
 * playwright-core, opens /graphql, types the key into the headers tab, runs a query and sees
 * fixture rows. Any request to another host, and any load the page's CSP refused, fails the test.
 * The screenshot is kept at test-results/graphiql.png (a CI artifact).
 */

const chromiumPath = '/usr/bin/chromium';
const screenshotPath = join('test-results', 'graphiql.png');
const chromiumPresent = existsSync(chromiumPath);
const inCi = ['1', 'true'].includes((process.env.CI ?? '').toLowerCase());

if (!chromiumPresent && !inCi) {
  console.warn(
    `Skipping the GraphiQL browser test: ${chromiumPath} is absent (apt-get install -y chromium). CI always runs it.`,
  );
}

describe.runIf(!chromiumPresent && inCi)('the GraphiQL browser test in CI', () => {
  it(`needs ${chromiumPath} (.ci/run installs Debian's chromium)`, () => {
    expect.fail(`${chromiumPath} is missing on a CI machine`);
  });
});

describe.skipIf(!chromiumPresent)('GraphiQL in Chromium, offline', () => {
  let service: QuerygateUnderTest;
  let userDataDir: string;
  let context: BrowserContext;
  let page: Page;
  /** Requests the route refused: anything not to the server on 127.0.0.1. */
  const refused: string[] = [];
  /** Loads the page's Content-Security-Policy refused before they became requests. */
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    service = await startQuerygateUnderTest({ now: fixtureNow, events: fixtureEvents });
    userDataDir = await mkdtemp(join(tmpdir(), 'querygate-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1400, height: 900 },
    });
    const origin = new URL(service.url).origin;
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      refused.push(url);
      return route.abort('blockedbyclient');
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`csp-violation ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.text().startsWith('csp-violation')) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await service?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  /** Replaces the whole text of a Monaco editor the way a paste would (no auto-closed brackets). */
  async function replaceEditorText(editor: ReturnType<Page['locator']>, text: string) {
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  it('runs a query with the key from the headers tab and shows fixture rows', async () => {
    await page.goto(`${service.url}/graphql`);
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    // The three example operations open as tabs, in the order of the contract files' names.
    await expect
      .poll(() => page.locator('.graphiql-tab-button').allTextContents())
      .toEqual(['FunctionsInvocationStats', 'LogsAll', 'UsageApiCounts']);

    // The headers tab opens prefilled with the header name; the key goes in as its value.
    await page
      .locator('.graphiql-editor-tools')
      .getByRole('button', { name: 'Headers', exact: true })
      .click();
    const headersEditor = page.locator(
      'section[aria-label="Headers"] .graphiql-editor:not(.hidden) .monaco-editor',
    );
    await expect.poll(() => headersEditor.textContent()).toContain('X-API-KEY');
    await replaceEditorText(headersEditor, JSON.stringify({ 'X-API-KEY': service.apiKey }));

    const query = `query FixtureLogs { logs { all(project: "${projects.alpha}", projectTier: FREE) { id timestamp eventMessage } } }`;
    await replaceEditorText(page.locator('.graphiql-query-editor .monaco-editor'), query);
    await page.getByRole('button', { name: /^Prettify query/ }).click();
    // GraphiQL takes in an edited document a moment later; executing before then sends the tab's
    // previous operation name with the new text. The tab title shows when it has the new one.
    await page.locator('.graphiql-tab-active').getByText('FixtureLogs').waitFor({ timeout: 10_000 });

    const answered = page.waitForResponse(
      (response) =>
        response.url().endsWith('/graphql') && (response.request().postData() ?? '').includes('FixtureLogs'),
    );
    await page.locator('.graphiql-execute-button').click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers()['x-api-key']).toBe(service.apiKey);
    const body = (await response.json()) as { data: { logs: { all: Array<{ id: string }> } } };
    const expected = expectedLogsAll(
      fixtureEvents,
      { project: projects.alpha, project_tier: 'FREE' },
      fixtureNow,
    );
    expect(body.data.logs.all.map((row) => row.id)).toEqual(expected.map((row) => row.id));

    // And the rows are on screen: the newest record's id is in the result pane.
    const newestId = expected[0]?.id ?? '';
    await page.locator('.graphiql-response').getByText(newestId, { exact: false }).first().waitFor();

    await mkdir('test-results', { recursive: true });
    await page.screenshot({ path: screenshotPath });
  }, 90_000);

  it('opens /graphql#key=... with the key in its headers, the key never in a URL the server sees', async () => {
    const keyPage = await context.newPage();
    const urls: string[] = [];
    keyPage.on('request', (request) => urls.push(request.url()));
    keyPage.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      const introspected = keyPage.waitForResponse(
        (response) =>
          response.url().endsWith('/graphql') &&
          (response.request().postData() ?? '').includes('IntrospectionQuery'),
      );
      await keyPage.goto(`${service.url}/graphql#key=${encodeURIComponent(service.apiKey)}`);
      // The schema was fetched with the key, so GraphiQL has no error to show.
      const introspection = await introspected;
      expect(introspection.status()).toBe(200);
      expect(introspection.request().headers()['x-api-key']).toBe(service.apiKey);
      await keyPage.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
      await keyPage
        .locator('.graphiql-editor-tools')
        .getByRole('button', { name: 'Headers', exact: true })
        .click();
      const headers = keyPage.locator(
        'section[aria-label="Headers"] .graphiql-editor:not(.hidden) .monaco-editor',
      );
      await expect.poll(() => headers.textContent()).toContain(service.apiKey);
      // The fragment has left the address bar; no request URL ever held the key.
      expect(keyPage.url()).toBe(`${service.url}/graphql`);
      expect(urls.length).toBeGreaterThan(0);
      expect(urls.filter((url) => url.includes(service.apiKey))).toEqual([]);
    } finally {
      await keyPage.close();
    }
  }, 90_000);

  it('says in one line that the key is missing, instead of the introspection request dumped', async () => {
    const bare = await context.newPage();
    bare.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      const introspected = bare.waitForResponse(
        (response) =>
          response.url().endsWith('/graphql') &&
          (response.request().postData() ?? '').includes('IntrospectionQuery'),
      );
      await bare.goto(`${service.url}/graphql`);
      expect((await introspected).status()).toBe(401);
      // Monaco lays the text out with no-break spaces and wraps it: compared with spaces collapsed.
      const paneText = async () =>
        ((await bare.locator('.graphiql-response').textContent()) ?? '').replace(/\s+/g, ' ');
      await expect
        .poll(paneText, { timeout: 30_000 })
        .toContain('No valid API key: put it in the Headers tab');
      const text = await paneText();
      expect(text).not.toContain('IntrospectionQuery');
      expect(text).not.toContain('UNAUTHENTICATED');
    } finally {
      await bare.close();
    }
  }, 90_000);

  it('made no request beyond the server on loopback, and the page policy refused nothing', () => {
    expect(refused).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
