import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { shutdownSandbox } from '../../shared/sandbox';
import { launch } from '../../bench/support/browser';
import { startDestinationServer, type DestinationServer } from '../support/destination-server';
import { bearer, call, startTestRuntime, type TestRuntime } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * The field's browser SDKs, as published on npm (pinned in devDependencies), in Debian's Chromium on a page of
 * another origin (`localhost`) than the data plane (`127.0.0.1`): their page, track and identify calls reach a
 * webhook destination through Weir, with the configuration they read from Weir too.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const BUNDLES: Record<string, string> = {
  '/rudderstack.js': 'node_modules/@rudderstack/analytics-js/dist/npm/modern/bundled/umd/index.js',
  '/segment.js': 'node_modules/@segment/analytics-next/dist/umd/index.js',
};

let rt: TestRuntime;
let hook: DestinationServer;
let pages: Server;
let pageOrigin: string;
let browser: Browser;

beforeAll(async () => {
  process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
  rt = await startTestRuntime();
  hook = await startDestinationServer();
  pages = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const bundle = BUNDLES[url.pathname];
    if (bundle) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return void res.end(readFileSync(path.join(ROOT, bundle)));
    }
    // The web example page (docs/getting-started/sdks.md), and the SDK bundle where it expects it.
    if (url.pathname === '/docs/web-example.html' || url.pathname.startsWith('/node_modules/@rudderstack/analytics-js/dist/')) {
      res.writeHead(200, { 'Content-Type': url.pathname.endsWith('.html') ? 'text/html' : 'text/javascript' });
      return void res.end(readFileSync(path.join(ROOT, path.normalize(url.pathname))));
    }
    // A blank page of this origin: each test loads its SDK into it.
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><html><head><title>shop</title></head><body><h1>A shop</h1></body></html>');
  });
  await new Promise<void>((resolve) => pages.listen(0, 'localhost', resolve));
  const address = pages.address();
  pageOrigin = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launch();
});
afterAll(async () => {
  delete process.env[OUTBOUND_ALLOWLIST_ENV];
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await hook?.close();
  await rt?.stop();
  await shutdownSandbox();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Delivered = Record<string, any>;
/** Code run in the page, where the SDKs' globals live (this file's types do not know them). */
const inPage = (code: string) => code;

/** A `javascript` source connected to a webhook at `hookPath`. */
async function connectedSource(hookPath: string) {
  const ws = await rt.newWorkspace();
  const api = (method: string, p: string, body?: unknown) => call(rt.controlUrl, method, p, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'shop', type: 'javascript' })).body.source as { id: string; writeKey: string };
  const destination = (await api('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: `${hook.url}${hookPath}` } })).body
    .destination;
  await api('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id });
  return source;
}

/** Waits until the webhook has `count` events on `hookPath` (or 30 s), then a moment more for duplicates. */
async function delivered(hookPath: string, count: number): Promise<Delivered[]> {
  const events = () => hook.received.filter((r) => r.path === hookPath).map((r) => r.json as Delivered);
  await waitFor(
    `${count} events on ${hookPath}`,
    () => events().length,
    (n) => n >= count,
    { timeoutMs: 30_000 },
  );
  await sleep(300);
  return events();
}

/** A fresh page of the shop's origin (no SDK state left from another test), its clock `skewMs` off. */
async function shopPage(skewMs = 0): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (skewMs) await page.clock.install({ time: Date.now() + skewMs });
  await page.goto(`${pageOrigin}/`);
  return page;
}

const loadScript = (page: Page, src: string) => page.addScriptTag({ url: `${pageOrigin}${src}` });

/** The RudderStack SDK, its configuration (configUrl) and its events at Weir; page, track and identify. */
async function rudderstack(page: Page, writeKey: string, options: Record<string, unknown> = {}) {
  await loadScript(page, '/rudderstack.js');
  const load = JSON.stringify({ configUrl: rt.dataUrl, ...options });
  await page.evaluate(
    inPage(`{
      const analytics = new rudderanalytics.RudderAnalytics();
      analytics.load(${JSON.stringify(writeKey)}, ${JSON.stringify(rt.dataUrl)}, ${load});
      analytics.page('Shop', 'Home', { section: 'landing' });
      analytics.track('Product Viewed', { sku: 'p-1' });
      analytics.identify('user-1', { email: 'user-1@example.com' });
    }`),
  );
}

/** Analytics.js: settings from Weir (`cdnURL`) unless `settings` are given inline; page, track and identify. */
async function segment(page: Page, writeKey: string, settings?: Record<string, unknown>) {
  // Where Analytics.js would load its lazy chunks from: this origin, never Segment's CDN.
  await page.evaluate(inPage(`window.analytics = { _cdn: ${JSON.stringify(pageOrigin)} }`));
  await loadScript(page, '/segment.js');
  const load = JSON.stringify({ writeKey, cdnURL: rt.dataUrl, ...(settings && { cdnSettings: settings }) });
  await page.evaluate(
    inPage(`(async () => {
      const [analytics] = await AnalyticsNext.AnalyticsBrowser.load(${load});
      await analytics.page('Shop', 'Home', { section: 'landing' });
      await analytics.track('Product Viewed', { sku: 'p-1' });
      await analytics.identify('user-1', { email: 'user-1@example.com' });
    })()`),
  );
}

const kinds = (events: Delivered[]) => events.map((e) => [e.type, e.event ?? e.name ?? null, e.userId || null]).sort();
const EXPECTED = [
  ['identify', null, 'user-1'],
  ['page', 'Home', null],
  ['track', 'Product Viewed', null],
].sort();

describe('the RudderStack JavaScript SDK', () => {
  it('reads its configuration from Weir and delivers page, track and identify', async () => {
    const source = await connectedSource('/rs-xhr');
    await rudderstack(await shopPage(), source.writeKey);
    const events = await delivered('/rs-xhr', 3);
    expect(kinds(events)).toEqual(EXPECTED);
    expect(new Set(events.map((e) => e.messageId)).size).toBe(3);
    expect(events.find((e) => e.type === 'identify')!.context).toMatchObject({
      traits: { email: 'user-1@example.com' },
      library: { name: 'RudderLabs JavaScript SDK' },
    });
    expect(events.every((e) => e.context.ip === '127.0.0.1' && !('writeKey' in e))).toBe(true);
  });

  it('delivers with useBeacon (navigator.sendBeacon to /beacon/v1/batch)', async () => {
    const source = await connectedSource('/rs-beacon');
    await rudderstack(await shopPage(), source.writeKey, { useBeacon: true, beaconQueueOptions: { flushQueueInterval: 200 } });
    expect(kinds(await delivered('/rs-beacon', 3))).toEqual(EXPECTED);
  });

  it('delivers at the real time from a page whose clock runs an hour fast', async () => {
    const source = await connectedSource('/rs-fast');
    const before = Date.now();
    await rudderstack(await shopPage(3600_000), source.writeKey);
    const events = await delivered('/rs-fast', 3);
    expect(kinds(events)).toEqual(EXPECTED);
    for (const event of events) {
      expect(Date.parse(event.originalTimestamp)).toBeGreaterThan(before + 3500_000);
      expect(Math.abs(Date.parse(event.timestamp) - Date.parse(event.receivedAt))).toBeLessThan(5000);
    }
  });

  it('sends nothing for a disabled source, which its configuration says', async () => {
    const ws = await rt.newWorkspace();
    const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'off', type: 'javascript', enabled: false } });
    const page = await shopPage();
    const config = page.waitForResponse((r) => r.url().includes('/sourceConfig'));
    await rudderstack(page, created.body.source.writeKey);
    const answer = await config;
    expect([answer.status(), (await answer.json()).source.enabled]).toEqual([200, false]);
  });

  it("works from the README's example page", async () => {
    const source = await connectedSource('/rs-example');
    const page = await shopPage();
    await page.goto(`${pageOrigin}/docs/web-example.html?writeKey=${source.writeKey}&dataPlaneUrl=${encodeURIComponent(rt.dataUrl)}`);
    await page.getByText('Source configuration read from').waitFor();
    for (const name of ['Page', 'Track "Trial Started"', 'Identify user-1']) await page.getByRole('button', { name }).click();
    const events = await delivered('/rs-example', 3);
    expect(events.map((e) => e.type).sort()).toEqual(['identify', 'page', 'track']);
  });
});

describe("Segment's Analytics.js", () => {
  const settings = (writeKey: string, extra: Record<string, unknown> = {}) => ({
    integrations: { 'Segment.io': { apiKey: writeKey, apiHost: `${new URL(rt.dataUrl).host}/v1`, protocol: 'http', ...extra } },
    metrics: { sampleRate: 0 },
  });

  it("delivers page, track and identify through Segment's one-letter paths", async () => {
    const source = await connectedSource('/seg-paths');
    const page = await shopPage();
    const paths = new Set<string>();
    page.on('request', (request) => void (request.method() === 'POST' && paths.add(new URL(request.url()).pathname)));
    await segment(page, source.writeKey, settings(source.writeKey));
    expect(kinds(await delivered('/seg-paths', 3))).toEqual(EXPECTED);
    expect([...paths].sort()).toEqual(['/v1/i', '/v1/p', '/v1/t']);
  });

  it('delivers with the batching strategy (/v1/b)', async () => {
    const source = await connectedSource('/seg-batch');
    const batching = { deliveryStrategy: { strategy: 'batching', config: { size: 3, timeout: 500 } } };
    await segment(await shopPage(), source.writeKey, settings(source.writeKey, batching));
    expect(kinds(await delivered('/seg-batch', 3))).toEqual(EXPECTED);
  });

  it('runs from Weir alone: its settings read from the data plane (cdnURL)', async () => {
    const source = await connectedSource('/seg-settings');
    const page = await shopPage();
    const settingsAnswer = page.waitForResponse((r) => r.url().endsWith(`/v1/projects/${source.writeKey}/settings`));
    await segment(page, source.writeKey);
    expect((await settingsAnswer).status()).toBe(200);
    const events = await delivered('/seg-settings', 3);
    expect(kinds(events)).toEqual(EXPECTED);
    expect(events.every((e) => !('writeKey' in e))).toBe(true);
  });

  it('delivers at the real time from a page whose clock runs an hour fast', async () => {
    const source = await connectedSource('/seg-fast');
    const before = Date.now();
    await segment(await shopPage(3600_000), source.writeKey, settings(source.writeKey));
    const events = await delivered('/seg-fast', 3);
    expect(kinds(events)).toEqual(EXPECTED);
    for (const event of events) {
      expect(Date.parse(event.originalTimestamp)).toBeGreaterThan(before + 3500_000);
      expect(Math.abs(Date.parse(event.timestamp) - Date.parse(event.receivedAt))).toBeLessThan(5000);
    }
  });
});

describe('an email pixel', () => {
  it('arrives as a track event when the image loads', async () => {
    const source = await connectedSource('/pixel');
    const page = await shopPage();
    const src = `${rt.dataUrl}/pixel/v1/track?writeKey=${source.writeKey}&anonymousId=reader-1&event=Email%20Opened&properties.campaign=autumn`;
    const size = await page.evaluate(
      inPage(`new Promise((resolve, reject) => {
        const image = new Image();
        image.onload = () => resolve([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => reject(new Error('the pixel did not load'));
        image.src = ${JSON.stringify(src)};
      })`),
    );
    expect(size).toEqual([1, 1]);
    const [event] = await delivered('/pixel', 1);
    expect(event).toMatchObject({ type: 'track', event: 'Email Opened', anonymousId: 'reader-1', properties: { campaign: 'autumn' } });
  });
});
