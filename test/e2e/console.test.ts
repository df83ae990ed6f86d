import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../../bench/support/browser';
import { screenshot, seriousViolations } from '../support/browser';
import { json, startDestinationServer, text, type DestinationServer } from '../support/destination-server';
import { start, stop, type Started } from '../support/npm-start';

/**
 * The console in a real browser (Debian's Chromium) against `npm start`, in the order a new user goes:
 * each step uses only what the pages show, and every page is checked by axe-core and photographed.
 */
jest.setTimeout(240_000);

const TOKEN = 'weir_console-e2e-token-0123456789abcdefghijklmnop';
let started: Started;
let browser: Browser;
let page: Page;
let hook: DestinationServer;
let sourceWriteKey = '';

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
});

afterAll(async () => {
  await browser?.close();
  await hook?.close();
  if (started) await stop(started);
});

/** Every page passes axe-core without a serious finding, and leaves a screenshot. */
async function checkPage(name: string) {
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, name);
}

/** Replaces the whole text of the CodeMirror editor, as pasting would (no auto-closed brackets). */
async function replaceCode(code: string) {
  const editor = page.locator('.cm-content');
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(code);
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Sends tracks to the source with the real Node SDK (a server's SDK: the same write key and data plane). */
async function sendWithSdk(events: { userId: string; event: string; properties?: Record<string, string> }[]) {
  const errors: unknown[] = [];
  const client = new RudderAnalytics(sourceWriteKey, {
    dataPlaneUrl: started.data,
    flushAt: 20,
    logLevel: 'error',
    errorHandler: (e) => errors.push(e),
  });
  for (const event of events) client.track(event);
  await client.flush();
  expect(errors).toEqual([]);
}

/** Waits until the local webhook received a track with this event name. */
async function hookReceives(event: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = hook.received.find((r) => (r.json as { event?: string } | undefined)?.event === event);
    if (found) return found.json as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`the webhook never received ${event}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the console, as a new user', () => {
  it('says its URL when npm start starts', () => {
    expect(started.output()).toContain(`console           ${started.console}`);
  });

  it('refuses a wrong token with the API’s own words, and keeps no token', async () => {
    await page.goto(started.console);
    await page.getByLabel('Workspace token').fill('weir_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Invalid Authorization Header');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await checkPage('sign-in');
  });

  it('signs in with a workspace token kept in session storage, not in the URL', async () => {
    await page.getByLabel('Workspace token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([TOKEN]);
  });

  it('creates a javascript source and shows its write key and the web snippets, waiting for its first event', async () => {
    await page.getByLabel('Name').fill('Website');
    await page.getByLabel('Type').fill('javascript');
    await page.getByRole('button', { name: 'Create source' }).click();
    const writeKey = page.getByTestId('write-key');
    await writeKey.waitFor();
    const key = (await writeKey.textContent()) ?? '';
    expect(key).toMatch(/\S{10,}/);
    // RudderStack's JavaScript SDK reads its configuration from configUrl, then sends to dataPlaneUrl: both are Weir.
    const load = `analytics.load('${key}', '${started.data}', { configUrl: '${started.data}', });`;
    const snippet = async (id: string) => ((await page.getByTestId(`snippet-${id}`).locator('pre').textContent()) ?? '').replace(/\s+/g, ' ');
    const npm = await snippet('npm');
    expect(npm).toContain("import { RudderAnalytics } from '@rudderstack/analytics-js/bundled';");
    expect(npm).toContain(load);
    const script = await snippet('script');
    expect(script).toContain('<script src="/js/rudder-analytics.js"></script> <script> const analytics = new rudderanalytics.RudderAnalytics();');
    expect(script).toContain(load);
    await expect(page.getByTestId('snippet-script').textContent()).resolves.toContain('dist/npm/modern/bundled/umd/index.js');
    await expect(page.getByRole('button', { name: 'Copy the script tag snippet' }).isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('first-event').textContent()).resolves.toBe('Waiting for the first event…');
    await checkPage('sources');
    sourceWriteKey = key;
  });

  it('creates a webhook destination from the form its definition generates, refusing a bad URL in the API’s words', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    const form = page.getByRole('form', { name: 'New destination' });
    await form.getByLabel('Type').selectOption('WEBHOOK');
    await form.getByLabel('Name').fill('Hook');
    // Field names, types and descriptions come from the definition (the webhook's zod schema).
    await expect(form.getByText('static headers, {from: name, to: value}; names are lower-cased').isVisible()).resolves.toBe(true);
    await form.getByLabel('webhookUrl (required)').fill('not a url');
    await form.getByRole('button', { name: 'Create destination' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toBe('config.webhookUrl: webhookUrl must be an http(s) URL');
    await form.getByLabel('webhookUrl (required)').fill(`${hook.url}/hook`);
    await form.getByLabel('webhookMethod').selectOption('POST');
    await form.getByRole('button', { name: 'Create destination' }).click();
    await page.getByRole('button', { name: /^Hook/ }).waitFor();
    await page.getByRole('form', { name: 'Configuration' }).getByLabel('webhookUrl (required)').waitFor();
    await expect(page.getByRole('form', { name: 'Configuration' }).getByLabel('webhookUrl (required)').inputValue()).resolves.toBe(`${hook.url}/hook`);
    await page.getByText('No failure.').waitFor();
    await checkPage('destinations');
  });

  it('writes a transformation, runs it on a sample event, and shows a refused publish with its failing test', async () => {
    await page.getByRole('link', { name: 'Transformations' }).click();
    // The page's own Name field: the page before it (Destinations) has one too until this one renders.
    await page.locator('#item-name').fill('Tagger');
    await replaceCode(
      'export function transformEvent(event) {\n  if (event.properties && event.properties.plan === "broken") throw new Error("plan broken");\n  return { ...event, properties: { ...event.properties, tagged: "weir" } };\n}\n',
    );
    await page.getByRole('button', { name: 'Run on sample events' }).click();
    const result = page.getByRole('article', { name: 'Result of Tagger' });
    await result.waitFor();
    await expect(result.textContent()).resolves.toContain('passed');
    await expect(result.locator('pre').textContent()).resolves.toContain('"tagged": "weir"');

    await page
      .getByLabel('Sample events (a JSON array)')
      .fill(JSON.stringify([{ type: 'track', event: 'x', userId: 'u2', messageId: 'bad-1', properties: { plan: 'broken' } }]));
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const refused = page.getByRole('alert').first();
    await refused.waitFor();
    await expect(refused.textContent()).resolves.toMatch(/^publish refused, nothing was saved: transformation Tagger fails: Error: plan broken/);
    await expect(page.getByRole('article', { name: 'Result of Tagger' }).textContent()).resolves.toContain('Event 0 (bad-1): Error: plan broken');
    await screenshot(page, 'transformations-refused-publish');
  });

  it('publishes the transformation for the webhook destination, and diffs two revisions', async () => {
    await page
      .getByLabel('Sample events (a JSON array)')
      .fill(JSON.stringify([{ type: 'track', event: 'x', userId: 'u2', messageId: 'ok-1', properties: { plan: 'pro' } }]));
    await page.getByRole('checkbox', { name: 'Hook' }).check();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Published: its tests passed on 1 sample event(s).');
    await page.getByRole('button', { name: /^Tagger published/ }).waitFor();

    await replaceCode('export function transformEvent(event) {\n  return { ...event, properties: { ...event.properties, tagged: "weir", version: 2 } };\n}\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const diff = page.getByRole('region', { name: 'Differences between the two revisions' });
    await diff.locator('ins', { hasText: 'version: 2' }).waitFor();
    await expect(diff.locator('ins').allTextContents()).resolves.toContain(
      '+   return { ...event, properties: { ...event.properties, tagged: "weir", version: 2 } };',
    );
    await expect(diff.locator('del').allTextContents()).resolves.toContain(
      '-   if (event.properties && event.properties.plan === "broken") throw new Error("plan broken");',
    );
    await checkPage('transformations');
  });

  it('connects the source to the destination, and draws source → transformation → destination', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByText('Nothing is connected yet.').waitFor();
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('listitem', { name: 'Website → Tagger → Hook' }).waitFor();
    // Connecting the same pair again is refused in the API's words.
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/already connected/);
    await checkPage('connections');
  });

  it('pushes a test event through the destination’s stages with the test interface', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    const form = page.getByRole('form', { name: 'Test event' });
    await form.getByLabel('Send it to the destination').check();
    await form.getByRole('button', { name: 'Run test event' }).click();
    const result = page.getByTestId('test-event-result');
    await result.waitFor();
    // The published transformation ran, the webhook request was built, sent, and answered.
    expect(JSON.parse((await result.locator('pre').first().textContent()) ?? '')).toMatchObject({
      user_transformed_payload: { event: 'Test Event', properties: { plan: 'pro', tagged: 'weir' } },
      dest_transformed_payload: [{ method: 'POST', endpoint: `${hook.url}/hook` }],
      destination_response: [{ ok: true }],
      destination_response_status: [200],
    });
    expect(await hookReceives('Test Event')).toMatchObject({ userId: 'test-user', properties: { plan: 'pro', tagged: 'weir' } });
    await checkPage('destinations-test-event');
  });

  it('shows events in live events as they arrive, delivered transformed to the webhook, and when the first one arrived', async () => {
    await page.getByRole('link', { name: 'Sources' }).click();
    await page.getByText('No event in the last 24 hours.').waitFor();
    await expect(page.getByTestId('first-event').textContent()).resolves.toBe('Waiting for the first event…');
    await sendWithSdk([{ userId: 'u1', event: 'Trial Started', properties: { plan: 'pro' } }]);
    // The page refreshes by itself: no reload, no click.
    await page.getByRole('table', { name: 'Live events' }).getByRole('cell', { name: 'Trial Started' }).waitFor();
    // The published revision runs, not the one saved after it.
    expect(await hookReceives('Trial Started')).toMatchObject({ userId: 'u1', properties: { plan: 'pro', tagged: 'weir' } });
    expect((await hookReceives('Trial Started')).properties).not.toHaveProperty('version');

    // When the first event arrived, in the browser's own time: the source's firstEventAt.
    const { sources } = (await (await fetch(`${started.control}/v2/sources`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      sources: { firstEventAt?: string }[];
    };
    const firstEventAt = sources[0]?.firstEventAt ?? '';
    expect(firstEventAt).not.toBe('');
    const local = await page.evaluate((iso) => new Date(iso).toLocaleString(), firstEventAt);
    await page.getByText(`First event arrived ${local}`).waitFor();
    await expect(page.getByTestId('first-event').locator('time').getAttribute('datetime')).resolves.toBe(firstEventAt);

    // An event over 32 KB is refused at ingestion: counted, and listed with its reason.
    const huge = await fetch(`${started.data}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${sourceWriteKey}:`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'u1', event: 'Huge Upload', properties: { blob: 'x'.repeat(40_000) } }),
    });
    expect(huge.status).toBe(413);
    await expect(page.getByTestId('refused-count').textContent()).resolves.toMatch(/^1 event refused at ingestion, the last at .+\./);
    const refusedRow = page.getByRole('table', { name: 'Live events' }).getByRole('row').filter({ hasText: 'Huge Upload' });
    await expect(refusedRow.getByRole('cell').nth(4).textContent()).resolves.toMatch(/^Refused: event is \d+ bytes, over the limit of 32768$/);
    await checkPage('sources-live-events');

    await page.getByRole('link', { name: 'Destinations' }).click();
    await expect(page.getByTestId('outcome-delivered').textContent()).resolves.toBe('1');
    await page.locator('.uplot').waitFor();
    await checkPage('destinations-outcomes');
  });

  it('shows a delivery the destination refused among the latest failures, with its answer', async () => {
    hook.on('/hook', json(400, { reason: 'plan not allowed here' }));
    await sendWithSdk([{ userId: 'u1', event: 'Refused Event' }]);
    await hookReceives('Refused Event');
    hook.on('/hook', json(200, { ok: true }));
    const failures = page.getByRole('table', { name: 'Latest failures' });
    await failures.waitFor();
    const row = failures.getByRole('row').filter({ hasText: 'aborted' });
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toBe('400');
    await expect(row.locator('pre').textContent()).resolves.toContain('"reason": "plan not allowed here"');
    await expect(page.getByTestId('outcome-aborted').textContent()).resolves.toBe('1');
    await checkPage('destinations-failures');
  });

  it('shows the destination’s funnel and its failed event on the Delivery page, and retries it once', async () => {
    await page.getByRole('link', { name: 'Delivery' }).click();
    const funnel = page.getByRole('table', { name: 'Funnel' });
    await funnel.waitFor();
    await expect(page.getByTestId('funnel-Aborted: 4xx answer').textContent()).resolves.toBe('1');
    await expect(page.getByRole('table', { name: 'Error classes' }).getByRole('cell', { name: 'http4xx' }).count()).resolves.toBe(1);
    const failed = page.getByRole('table', { name: 'Failed events' });
    const row = failed.getByRole('row').filter({ hasText: 'http4xx' });
    await expect(row.textContent()).resolves.toContain('plan not allowed here');
    await checkPage('delivery');
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Retry selected (1)' }).click();
    await page.getByRole('status', { name: 'Retry job' }).filter({ hasText: 'done' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('status', { name: 'Retry job' }).textContent()).resolves.toContain('1 sent, 1 delivered');
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Refused Event')).toHaveLength(2);
    await page.getByTestId('funnel-Aborted: 4xx answer').filter({ hasText: /^0$/ }).waitFor();
    await failed.getByRole('row').filter({ hasText: 'delivered' }).waitFor();
    await checkPage('delivery-retried');
  });

  it('replays the last hour of the source to the webhook from the Delivery page, and shows its progress', async () => {
    const before = hook.received.length;
    await page.getByRole('form', { name: 'Replay stored events' }).getByRole('button', { name: 'Replay to this destination' }).click();
    await page.getByTestId('replay-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(hook.received.length).toBeGreaterThan(before);
    await expect(page.getByRole('table', { name: 'Replays' }).textContent()).resolves.toMatch(/\d+ read, \d+ delivered/);
    await checkPage('delivery-replay');
  });

  it('sets an alert rule that tells Slack when events wait for a retry, and lists what it sent', async () => {
    hook.on('/slack', text(200, 'ok'));
    hook.on('/hook', json(503, {}));
    await sendWithSdk([{ userId: 'u-alert', event: 'Parked Event' }]);
    await hookReceives('Parked Event');
    hook.on('/hook', json(200, { ok: true }));
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Webhook backlog');
    await page.getByLabel('When').selectOption('destination-backlog');
    await page.getByLabel('More than this many events waiting').fill('0');
    await page.getByLabel('Slack webhook URL').fill(`${hook.url}/slack`);
    await page.getByRole('button', { name: 'Create alert rule' }).click();
    await page.getByTestId('alert-state').filter({ hasText: 'firing' }).waitFor({ timeout: 30_000 });
    await page.getByRole('table', { name: 'Notifications' }).getByRole('row').filter({ hasText: 'answered 200' }).waitFor();
    const slack = hook.received.filter((r) => r.path === '/slack').map((r) => (r.json as { text: string }).text);
    expect(slack).toEqual([expect.stringContaining('Alert firing: *Webhook backlog*')]);
    await checkPage('alerts');
  });

  it('suppresses a user, whose next events are dropped while another user’s arrive', async () => {
    await page.getByRole('link', { name: 'Regulations' }).click();
    await page.getByLabel('User IDs (comma or space separated)').fill('u-gone');
    await page.getByRole('button', { name: 'Create regulation' }).click();
    await expect(page.getByTestId('regulation-status').textContent()).resolves.toBe('active');
    await checkPage('regulations');

    await sendWithSdk([
      { userId: 'u-gone', event: 'Gone Event' },
      { userId: 'u1', event: 'After Suppression' },
    ]);
    await page.getByRole('link', { name: 'Sources' }).click();
    await page.getByRole('table', { name: 'Live events' }).getByRole('cell', { name: 'After Suppression' }).waitFor();
    await hookReceives('After Suppression');
    await expect(page.getByRole('table', { name: 'Live events' }).getByRole('cell', { name: 'Gone Event' }).count()).resolves.toBe(0);
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Gone Event')).toEqual([]);
  });

  it('edits the rules of a connection without code: a dry run on recent events, a refused save in the API’s words, then saved', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('button', { name: 'Rules of Website → Hook' }).click();
    await page.getByText('No rule: every event goes on as it is.').waitFor();
    // A drop-if rule on the event name, built from the form.
    await page.getByLabel('New rule').selectOption('drop-if');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 1 name').fill('no trials');
    await page.getByLabel('Rule 1 condition 1 path').fill('event');
    await page.getByLabel('Rule 1 condition 1 value').fill('Trial Started');
    await page.getByLabel('New rule').selectOption('sample');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 2 fraction').fill('2');
    // The dry run names what each rule would stop among the source's recent events.
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('body.rules.1.fraction: must be at most 1');
    await page.getByLabel('Rule 2 fraction').fill('1');
    await page.getByRole('button', { name: 'Dry run' }).click();
    const dry = page.getByRole('table', { name: 'Dry run' });
    await dry.waitFor();
    const stored = Number(/Of the last (\d+) events/.exec((await page.getByTestId('dry-run-summary').textContent()) ?? '')?.[1]);
    expect(stored).toBeGreaterThanOrEqual(3);
    await expect(dry.getByRole('row').filter({ hasText: 'no trials' }).getByRole('cell').nth(2).textContent()).resolves.toBe(`1 of ${stored}`);
    await expect(dry.getByRole('row').filter({ hasText: '2-sample' }).getByRole('cell').nth(2).textContent()).resolves.toBe(`0 of ${stored}`);
    await checkPage('connections-rules-dry-run');
    // Saving a refused list answers in the API's words and keeps nothing; a valid one is saved.
    await page.getByLabel('Rule 1 condition 1 test').selectOption('matches');
    await page.getByLabel('Rule 1 condition 1 value').fill('(');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^body\.rules\.0\.conditions\.0\.pattern: is not a valid regular expression/);
    await page.getByLabel('Rule 1 condition 1 value').fill('^Debug ');
    await page.getByRole('button', { name: 'Remove rule 2' }).click();
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    // The earlier dry run described another list: it is gone.
    await expect(page.getByRole('table', { name: 'Dry run' }).count()).resolves.toBe(0);
    // The pipeline reloads with the saved list: its button counts the rules.
    await page.getByRole('button', { name: 'Rules of Website → Hook' }).filter({ hasText: 'Rules (1)' }).waitFor();
    const { connections } = (await (await fetch(`${started.control}/v2/connections`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      connections: { rules: unknown[] }[];
    };
    expect(connections[0]!.rules).toEqual([
      { type: 'drop-if', name: 'no trials', match: 'all', conditions: [{ path: 'event', op: 'matches', pattern: '^Debug ' }] },
    ]);
    await checkPage('connections-rules');
    // Live: the rule stops its event, which the destination's outcomes count under the rule's name.
    await sendWithSdk([
      { userId: 'u1', event: 'Debug Ping' },
      { userId: 'u1', event: 'After Rules' },
    ]);
    await hookReceives('After Rules');
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Debug Ping')).toEqual([]);
    await page.getByRole('link', { name: 'Destinations' }).click();
    const byRule = page.getByRole('table', { name: 'Filtered by rule' });
    await expect(byRule.getByRole('row').filter({ hasText: 'no trials' }).getByRole('cell').nth(2).textContent()).resolves.toBe('1');
    await checkPage('destinations-filtered-by-rule');
  });

  it('opens the schema of the event sent and shows its frequent values', async () => {
    await page.getByRole('link', { name: 'Event schemas' }).click();
    await page.getByRole('button', { name: /^track: Trial Started/ }).click();
    const plan = page.getByRole('group', { name: 'Frequent values of properties.plan' });
    await plan.waitFor();
    await expect(plan.locator('.bar').first().textContent()).resolves.toBe('pro100.0 %');
    await page.getByRole('table', { name: 'Schema', exact: true }).getByRole('cell', { name: 'plan (properties.plan)' }).waitFor();
    await page.getByRole('button', { name: /^Version 1/ }).click();
    const version = page.getByRole('region', { name: 'Version' });
    await version.getByRole('table', { name: 'Version schema' }).getByRole('cell', { name: 'plan (properties.plan)' }).waitFor();
    await version.getByRole('group', { name: 'Frequent values of properties.plan' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download JSON Schema' }).click();
    const schema = JSON.parse(await streamText(await (await download).createReadStream()));
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { properties: { properties: { plan: { type: 'string' } } } },
    });
    await checkPage('schemas');
  });

  it('makes a tracking plan from the captured events in a click, edits it as a new version with a diff, and shows its stats', async () => {
    await page.getByRole('link', { name: 'Tracking plans' }).click();
    await page.getByText('No tracking plan yet.').waitFor();
    await page.getByLabel('Plan name').fill('Website plan');
    await page.getByRole('button', { name: 'Create plan from captured events' }).click();
    await page.getByRole('button', { name: /^Website plan version 1/ }).waitFor();
    const specs = JSON.parse(await page.getByLabel(/^Specs/).inputValue()) as {
      type: string;
      name?: string;
      schema: { required?: string[]; properties: object };
    }[];
    const trial = specs.find((s) => s.name === 'Trial Started')!;
    expect(trial.schema).toMatchObject({ properties: { plan: { type: 'string' } }, required: expect.arrayContaining(['plan']) });

    // A new version: the trial needs seats too.
    trial.schema.properties = { ...trial.schema.properties, seats: { type: 'string' } };
    trial.schema.required = [...(trial.schema.required ?? []), 'seats'];
    await page.getByLabel(/^Specs/).fill(JSON.stringify(specs, null, 2));
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('heading', { name: 'Website plan · version 2' }).waitFor();
    await page.getByRole('list', { name: 'Changes between the two versions' }).getByText('Changed track: Trial Started: +seats · required +seats').waitFor();
    await page.getByRole('region', { name: "Differences between the two versions' specs" }).locator('ins').first().waitFor();

    await page.getByLabel('Mode').selectOption('drop-event');
    await page.getByRole('button', { name: 'Hold source to version 2' }).click();
    await page.getByRole('list', { name: 'Sources held to this plan' }).getByText('Website: version 2, drop-event, unplanned events allowed').waitFor();
    // Ingestion keeps a write key's source 5 s: the plan applies after that.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await sendWithSdk([
      { userId: 'u1', event: 'Trial Started', properties: { plan: 'pro', seats: '3', coupon: 'X' } },
      { userId: 'u2', event: 'Trial Started', properties: { plan: 'pro' } },
    ]);
    const stats = page.getByRole('table', { name: 'Tracking plan stats' });
    const row = stats.getByRole('row').filter({ hasText: 'track: Trial Started' });
    // Total, validated, with violations, dropped, then one column per violation type (Required-Missing second).
    const counted = async () => (await row.getByRole('cell').allTextContents()).slice(3, 9).join(' ');
    for (const deadline = Date.now() + 20_000; (await counted()) !== '2 1 1 1 0 1' && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(counted()).resolves.toBe('2 1 1 1 0 1');
    await checkPage('tracking-plans');

    // The event schema marks the key the plan does not know.
    await page.getByRole('link', { name: 'Event schemas' }).click();
    await page.getByRole('button', { name: /^track: Trial Started/ }).click();
    const coupon = page.getByRole('table', { name: 'Schema', exact: true }).getByRole('row').filter({ hasText: 'coupon (properties.coupon)' });
    await coupon.getByText('not in plan').waitFor({ timeout: 20_000 });
    const plan = page.getByRole('table', { name: 'Schema', exact: true }).getByRole('row').filter({ hasText: 'plan (properties.plan)' });
    await expect(plan.getByText('not in plan').count()).resolves.toBe(0);
    await screenshot(page, 'schemas-tracking-plan');
  });

  it('keeps credentials as keys only: a value is typed once and never shown again', async () => {
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByLabel('Key', { exact: true }).fill('1bad');
    await page.getByLabel('Value (sent once, never shown again)').fill('x');
    await page.getByRole('button', { name: 'Save credential' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^path\.key: /);
    await page.getByLabel('Key', { exact: true }).fill('CRM_KEY');
    await page.getByLabel('Value (sent once, never shown again)').fill('value-typed-once-7f3a');
    await page.getByRole('button', { name: 'Save credential' }).click();
    await page.getByRole('table', { name: 'Credentials' }).getByRole('cell', { name: 'CRM_KEY', exact: true }).waitFor();
    await expect(page.getByLabel('Value (sent once, never shown again)').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain('value-typed-once-7f3a');
    await checkPage('credentials');
  });

  it('keeps a library with its revisions and publishes it', async () => {
    await page.getByRole('link', { name: 'Transformations' }).click();
    await page.getByRole('button', { name: 'New library' }).click();
    await page.locator('#item-name').fill('Plan Helpers');
    await replaceCode('export function isPaid(plan) {\n  return plan !== "free";\n}\n');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Published: its tests passed on the transformations that import it.');
    await page.getByRole('list', { name: 'Libraries' }).getByRole('button', { name: 'Plan Helpers published' }).waitFor();
    // The library's details render once it is loaded: wait for them, then check there is exactly one.
    await page.getByText('import from "planHelpers"').first().waitFor();
    await expect(page.getByText('import from "planHelpers"').count()).resolves.toBe(1);
  });

  it('gives a mobile source its SDK’s snippet, and any other type the Node.js one', async () => {
    await page.getByRole('link', { name: 'Sources' }).click();
    // The form of this page, not the one of the page left (which has a Name too).
    const form = page.getByRole('form', { name: 'New source' });
    await form.getByLabel('Name').fill('Android app');
    await form.getByLabel('Type').fill('Android');
    await form.getByRole('button', { name: 'Create source' }).click();
    const android = page.getByTestId('snippet-android').locator('pre');
    await android.waitFor();
    const key = (await page.getByTestId('write-key').textContent()) ?? '';
    const code = (await android.textContent()) ?? '';
    expect(code).toContain(`"${key}",`);
    expect(code).toContain(`.withDataPlaneUrl("${started.data}")`);
    expect(code).toContain(`.withControlPlaneUrl("${started.data}")`);
    await checkPage('sources-android');

    await form.getByLabel('Name').fill('Backend');
    await form.getByLabel('Type').fill('node');
    await form.getByRole('button', { name: 'Create source' }).click();
    await page.getByTestId('snippet-node').waitFor();
    const backendKey = (await page.getByTestId('write-key').textContent()) ?? '';
    await expect(page.getByTestId('snippet-node').locator('pre').textContent()).resolves.toContain(
      `new Analytics('${backendKey}', { dataPlaneUrl: '${started.data}' })`,
    );
  });

  it('signs out, forgetting the token', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Workspace token').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});
