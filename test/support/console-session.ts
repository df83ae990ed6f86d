import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../../bench/support/browser';
import { screenshot, seriousViolations } from './browser';
import { startDestinationServer, type DestinationServer } from './destination-server';
import { start, stop, type Started } from './npm-start';
import { waitFor } from './wait';

/**
 * The setting of a console test file: `npm start` in memory with one workspace, Debian's Chromium with one
 * page, and a local webhook. Jest gives each test file its own copy of this module, so the bindings below
 * are that file's: `openConsole()` at the top of the file sets them before its tests run.
 */

export const TOKEN = 'weir_console-e2e-token-0123456789abcdefghijklmnop';
export let started: Started;
export let page: Page;
export let hook: DestinationServer;
let browser: Browser;
/** The write key of the source `seedSource` made. */
let seededWriteKey = '';

export interface ConsoleOptions {
  /** Signs in through the sign-in page before the tests (the sign-in tests do it themselves). */
  signIn?: boolean;
  /** What the workspace holds before the tests, made through the API (before signing in). */
  seed?: () => Promise<void>;
}

export function openConsole(options: ConsoleOptions = {}): void {
  jest.setTimeout(240_000);
  beforeAll(async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'weir-console-'));
    started = await start({
      WEIR_HOME: home,
      WEIR_IN_MEMORY: '1',
      WEIR_BOOTSTRAP_EMAIL: 'console@weir.test',
      WEIR_BOOTSTRAP_TOKEN: TOKEN,
      WEIR_OUTBOUND_ALLOWLIST: '127.0.0.1',
    });
    browser = await launch();
    hook = await startDestinationServer();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await options.seed?.();
    if (options.signIn) await signIn();
  });
  afterAll(async () => {
    await browser?.close();
    await hook?.close();
    if (started) await stop(started);
  });
}

async function signIn() {
  await page.goto(started.console);
  await page.getByLabel('Workspace token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/** A call to the control plane as the workspace; a refusal fails the setup. */
export async function control<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${started.control}${route}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** The web site's source, as a new user names it: `Website`, of type javascript. */
async function seedSource(): Promise<{ id: string }> {
  const { source } = await control<{ source: { id: string; writeKey: string } }>('POST', '/v2/sources', { name: 'Website', type: 'javascript' });
  seededWriteKey = source.writeKey;
  return source;
}

/** `Website` with one track sent, `Trial Started` on the pro plan, once its event schema is captured. */
export async function seedCapturedTrial() {
  const source = await seedSource();
  await sendWithSdk([{ userId: 'u1', event: 'Trial Started', properties: { plan: 'pro' } }]);
  await waitFor(
    'the event schema of Trial Started',
    () => control<{ EventType: string; EventIdentifier?: string }[]>('GET', `/v2/sources/${source.id}/event-models`),
    (models) => models.some((m) => m.EventType === 'track' && m.EventIdentifier === 'Trial Started'),
    { timeoutMs: 20_000, everyMs: 250 },
  );
}

/**
 * The pipeline a new user builds first: `Website` → the transformation `Tagger` (which tags each event) → the
 * webhook destination `Hook` (POST to the local webhook's /hook), and one track delivered through it.
 */
export async function seedPipeline() {
  const source = await seedSource();
  const config = { webhookUrl: `${hook.url}/hook`, webhookMethod: 'POST' };
  const { destination } = await control<{ destination: { id: string } }>('POST', '/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config });
  const code = 'export function transformEvent(event) {\n  return { ...event, properties: { ...event.properties, tagged: "weir" } };\n}\n';
  await control('POST', '/transformations?publish=true', { name: 'Tagger', code, destinationIds: [destination.id] });
  await control('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id });
  await sendWithSdk([{ userId: 'u1', event: 'Trial Started', properties: { plan: 'pro' } }]);
  expect(await hookReceives('Trial Started')).toMatchObject({ properties: { plan: 'pro', tagged: 'weir' } });
}

/** Every page passes axe-core without a serious finding, and leaves a screenshot. */
export async function checkPage(name: string) {
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, name);
}

/** The page's width: at a phone's 390 px nothing may scroll sideways but boxes that scroll on their own. */
export const pageWidth = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;

/** Runs `steps` at a phone's 390×844, then gives the page back the size `openConsole` gave it. */
export async function onPhone(steps: () => Promise<void>) {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await steps();
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

/** The page as it is now does not scroll sideways at a phone's width, and passes `checkPage`. */
export async function fitsPhone(name: string) {
  expect(await pageWidth()).toBe(390);
  await checkPage(name);
}

/** The buckets a series chart draws, from its figure's data, once uPlot has drawn it. */
export async function drawn<Bucket>(figure: string): Promise<Bucket[]> {
  const chart = page.locator('figure.series').filter({ has: page.getByRole('img', { name: new RegExp(`^${figure}`) }) });
  await chart.locator('.uplot').waitFor();
  return JSON.parse((await chart.getAttribute('data-series'))!) as Bucket[];
}

/** The query of a window from an hour ago to an hour ahead. */
export const lastHours = () => `from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 3600_000).toISOString()}`;

/** Waits until the destination's funnel counts `total` aborted events in `lastHours`. */
export async function abortedReaches(destinationId: string, total: number) {
  const read = () => control<{ aborted: { total: number } }>('GET', `/v2/destinations/${destinationId}/delivery?${lastHours()}`);
  await waitFor(`the funnel to count ${total} aborted`, read, (funnel) => funnel.aborted.total === total, { timeoutMs: 30_000, everyMs: 250 });
}

/** Waits until the destination's counters (what alert rules read) count at least `least` events waiting for a retry. */
export async function retryingReaches(destinationId: string, least: number) {
  const read = () => control<{ retrying: number }>('GET', `/v2/destinations/${destinationId}/outcomes`);
  await waitFor(`the destination to count ${least} events waiting for a retry`, read, ({ retrying }) => retrying >= least, { timeoutMs: 30_000, everyMs: 250 });
}

/** Replaces the whole text of the CodeMirror editor, as pasting would (no auto-closed brackets). */
export async function replaceCode(code: string) {
  const editor = page.locator('.cm-content');
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(code);
}

export async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

export type SdkTrack = { userId: string; event: string; properties?: Record<string, string | number | boolean> };

/** Sends tracks to a source with the real Node SDK (a server's SDK: the same write key and data plane). */
export async function sendTracks(writeKey: string, events: SdkTrack[]) {
  const errors: unknown[] = [];
  const client = new RudderAnalytics(writeKey, {
    dataPlaneUrl: started.data,
    flushAt: 20,
    logLevel: 'error',
    errorHandler: (e) => errors.push(e),
  });
  for (const event of events) client.track(event);
  await client.flush();
  expect(errors).toEqual([]);
}

/** Sends tracks to the seeded source. */
export const sendWithSdk = (events: SdkTrack[]) => sendTracks(seededWriteKey, events);

/** Waits until the local webhook received a track with this event name. */
export async function hookReceives(event: string) {
  const find = () => hook.received.find((r) => (r.json as { event?: string } | undefined)?.event === event);
  const found = await waitFor(`the webhook to receive ${event}`, find, Boolean, { timeoutMs: 20_000, everyMs: 200 });
  return found!.json as Record<string, unknown>;
}
