import { screenshot } from '../support/browser';
import { TOKEN, checkPage, hook, hookReceives, openConsole, page, replaceCode, sendTracks, started, type SdkTrack } from '../support/console-session';

/**
 * The console in a real browser (Debian's Chromium) against `npm start`, in the order a new user goes, up to
 * a first working pipeline: signing in, a source, a webhook destination, a transformation, their connection,
 * a test event, then live events. Each step uses only what the pages show, and every page is checked by
 * axe-core and photographed. The console's other areas: console-delivery, console-schemas and
 * console-workspace.
 */
openConsole();

let sourceWriteKey = '';
/** Sends tracks with the write key the Sources page showed. */
const sendWithSdk = (events: SdkTrack[]) => sendTracks(sourceWriteKey, events);

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

  it('signs in with a workspace token kept in session storage, not in the URL, onto the overview', async () => {
    await page.getByLabel('Workspace token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([TOKEN]);
    await page.getByRole('link', { name: 'Sources' }).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
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
    await form.getByLabel('Name', { exact: true }).fill('Hook');
    // Field names, types and descriptions come from the definition (the webhook's zod schema).
    await expect(form.getByText('Static headers added to each request; names are lower-cased').isVisible()).resolves.toBe(true);
    await form.getByLabel('Webhook URL').fill('not a url');
    await form.getByRole('button', { name: 'Create destination' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toBe('config.webhookUrl: webhookUrl must be an http(s) URL');
    await form.getByLabel('Webhook URL').fill(`${hook.url}/hook`);
    await form.getByLabel('HTTP method').selectOption('POST');
    await form.getByRole('button', { name: 'Create destination' }).click();
    await page.getByRole('button', { name: /^Hook/ }).waitFor();
    await page.getByRole('form', { name: 'Configuration' }).getByLabel('Webhook URL').waitFor();
    await expect(page.getByRole('form', { name: 'Configuration' }).getByLabel('Webhook URL').inputValue()).resolves.toBe(`${hook.url}/hook`);
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
    // The published transformation ran, the webhook request was built, sent, and answered: one block per stage.
    const stage = async (title: string) =>
      JSON.parse(
        (await result
          .locator('details.stage', { has: page.locator('summary', { hasText: title }) })
          .locator('pre')
          .textContent()) ?? '',
      ) as unknown;
    expect(await stage('Transformed')).toMatchObject({ event: 'Test Event', properties: { plan: 'pro', tagged: 'weir' } });
    expect(await stage('Destination payload')).toMatchObject([{ method: 'POST', endpoint: `${hook.url}/hook` }]);
    expect(await stage("Destination's answer (status 200)")).toEqual([{ ok: true }]);
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
});
