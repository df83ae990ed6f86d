import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, screenshot, seriousViolations } from '../support/browser';
import { startDestinationServer, type DestinationServer } from '../support/destination-server';
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

  it('creates a source and shows its write key and SDK snippet', async () => {
    await page.getByLabel('Name').fill('Website');
    await page.getByRole('button', { name: 'Create source' }).click();
    const writeKey = page.getByTestId('write-key');
    await writeKey.waitFor();
    const key = (await writeKey.textContent()) ?? '';
    expect(key).toMatch(/\S{10,}/);
    await expect(page.locator('pre.code').textContent()).resolves.toContain(`new Analytics('${key}', { dataPlaneUrl: '${started.data}' })`);
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
    await page.getByLabel('Name').fill('Tagger');
    await replaceCode('export function transformEvent(event) {\n  if (event.properties && event.properties.plan === "broken") throw new Error("plan broken");\n  return { ...event, properties: { ...event.properties, tagged: "weir" } };\n}\n');
    await page.getByRole('button', { name: 'Run on sample events' }).click();
    const result = page.getByRole('article', { name: 'Result of Tagger' });
    await result.waitFor();
    await expect(result.textContent()).resolves.toContain('passed');
    await expect(result.locator('pre').textContent()).resolves.toContain('"tagged": "weir"');

    await page.getByLabel('Sample events (a JSON array)').fill(JSON.stringify([{ type: 'track', event: 'x', userId: 'u2', messageId: 'bad-1', properties: { plan: 'broken' } }]));
    await page.getByRole('button', { name: 'Publish' }).click();
    const refused = page.getByRole('alert').first();
    await refused.waitFor();
    await expect(refused.textContent()).resolves.toMatch(/^publish refused, nothing was saved: transformation Tagger fails: Error: plan broken/);
    await expect(page.getByRole('article', { name: 'Result of Tagger' }).textContent()).resolves.toContain('Event 0 (bad-1): Error: plan broken');
    await screenshot(page, 'transformations-refused-publish');
  });

  it('publishes the transformation for the webhook destination, and diffs two revisions', async () => {
    await page.getByLabel('Sample events (a JSON array)').fill(JSON.stringify([{ type: 'track', event: 'x', userId: 'u2', messageId: 'ok-1', properties: { plan: 'pro' } }]));
    await page.getByRole('checkbox', { name: 'Hook' }).check();
    await page.getByRole('button', { name: 'Publish' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Published: its tests passed on 1 sample event(s).');
    await page.getByRole('button', { name: /^Tagger published/ }).waitFor();

    await replaceCode('export function transformEvent(event) {\n  return { ...event, properties: { ...event.properties, tagged: "weir", version: 2 } };\n}\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const diff = page.getByRole('region', { name: 'Differences between the two revisions' });
    await diff.locator('ins', { hasText: 'version: 2' }).waitFor();
    await expect(diff.locator('ins').allTextContents()).resolves.toContain('+   return { ...event, properties: { ...event.properties, tagged: "weir", version: 2 } };');
    await expect(diff.locator('del').allTextContents()).resolves.toContain('-   if (event.properties && event.properties.plan === "broken") throw new Error("plan broken");');
    await checkPage('transformations');
  });
});
