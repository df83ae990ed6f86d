import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, screenshot, seriousViolations } from '../support/browser';
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
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  if (started) await stop(started);
});

/** Every page passes axe-core without a serious finding, and leaves a screenshot. */
async function checkPage(name: string) {
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, name);
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
  });
});
