import { checkPage, openConsole, page, replaceCode, started } from '../support/console-session';

/**
 * The console in a real browser, on the rest of the workspace: credentials, transformation libraries, the
 * snippets of sources other than a web site, and signing out. The workspace starts empty.
 */
openConsole({ signIn: true });

describe('the console, as a new user', () => {
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
