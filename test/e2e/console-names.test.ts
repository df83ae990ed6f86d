import { control, TOKEN, checkPage, hook, openConsole, page, seedPipeline, sendWithSdk, started } from '../support/console-session';

/**
 * The console in a real browser, on what it prints: names where the API has ids (transformations, revisions,
 * sources, regulation destinations) and test results stage by stage, each a block that folds. It begins with
 * Website → Tagger → Hook (console-session's seedPipeline), a rule on the connection that drops `Dropped`, and a
 * second destination able to delete users.
 */
/** A Weir id (a ULID): 26 characters of Crockford's base32. */
const ID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/;

async function seed() {
  await seedPipeline();
  const { connections } = await control<{ connections: { id: string }[] }>('GET', '/v2/connections');
  const rule = { type: 'drop-if', name: 'no drops', conditions: [{ path: 'event', op: 'equals', value: 'Dropped' }] };
  await control('PUT', `/v2/connections/${connections[0]!.id}/rules`, { rules: [rule] });
  await control('POST', '/v2/destinations', { name: 'Product analytics', type: 'AM', config: { apiKey: 'k', baseUrl: `${hook.url}/amplitude` } });
}

openConsole({ signIn: true, seed });

/** The text of the page's content, which must hold no id. */
const shown = () => page.locator('main').innerText();
/** A stage's block in `scope`, by its title. */
const stage = (scope: ReturnType<typeof page.locator>, title: string) => scope.locator('details.stage', { has: page.locator('summary', { hasText: title }) });
const stageJson = async (scope: ReturnType<typeof page.locator>, title: string) =>
  JSON.parse((await stage(scope, title).locator('pre').textContent()) ?? '') as unknown;

describe('the console, on names and stages', () => {
  it("shows a transformation's run stage by stage, and its revisions numbered and dated, not by id", async () => {
    await page.getByRole('link', { name: 'Transformations' }).click();
    await page.getByRole('button', { name: /^Tagger/ }).click();
    await page
      .getByRole('list', { name: 'Revisions' })
      .getByText(/^#1 · .+ · published$/)
      .waitFor();
    await page.getByText('the latest revision is published').waitFor();
    await page.getByRole('button', { name: 'Run on sample events' }).click();
    const result = page.getByRole('article', { name: 'Result of Tagger' });
    await result.waitFor();
    const section = page.locator('section', { has: result });
    expect(await stageJson(section, 'Input')).toEqual([expect.objectContaining({ event: 'Signed Up', properties: { plan: 'pro' } })]);
    expect(await stageJson(result, 'Transformed')).toEqual([expect.objectContaining({ event: 'Signed Up', properties: { plan: 'pro', tagged: 'weir' } })]);
    // A block folds on a click on its title.
    await stage(result, 'Transformed').locator('summary').click();
    await expect(stage(result, 'Transformed').getAttribute('open')).resolves.toBeNull();
    await expect(stage(result, 'Transformed').locator('pre').isVisible()).resolves.toBe(false);
    expect(await shown()).not.toMatch(ID);
    await checkPage('transformations-stages');
  });

  it("shows a destination's test event stage by stage, its transformation and a rule's source by name", async () => {
    await sendWithSdk([{ userId: 'u3', event: 'Dropped' }]);
    await page.getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('button', { name: /^Hook/ }).click();
    await page.getByText(/ · transformation Tagger$/).waitFor();
    await page
      .getByRole('table', { name: 'Filtered by rule' })
      .getByRole('row')
      .filter({ hasText: /^no drops\s*Website\s*1$/ })
      .waitFor({ timeout: 20_000 });

    const form = page.getByRole('form', { name: 'Test event' });
    await form.getByLabel('Send it to the destination').check();
    await form.getByRole('button', { name: 'Run test event' }).click();
    const result = page.getByTestId('test-event-result');
    await result.waitFor();
    await expect(result.locator('details.stage > summary').allTextContents()).resolves.toEqual([
      'Input',
      'Transformed',
      'Destination payload',
      "Destination's answer (status 200)",
    ]);
    expect(await stageJson(result, 'Input')).toMatchObject({ event: 'Test Event', properties: { plan: 'pro' } });
    expect(await stageJson(result, 'Transformed')).toMatchObject({ event: 'Test Event', properties: { plan: 'pro', tagged: 'weir' } });
    expect(await stageJson(result, 'Destination payload')).toMatchObject([{ method: 'POST', endpoint: `${hook.url}/hook` }]);
    expect(await stageJson(result, "Destination's answer")).toEqual([{ ok: true }]);
    // Formatted: one key a line, indented.
    await expect(stage(result, 'Transformed').locator('pre').textContent()).resolves.toContain('\n  "event": "Test Event",\n');
    expect(await shown()).not.toMatch(ID);
    await checkPage('destinations-test-stages');
  });

  it("names a regulation's destinations, a deleted one as deleted, not by their ids", async () => {
    const { destinations } = await control<{ destinations: { id: string; name: string }[] }>('GET', '/v2/destinations');
    const analytics = destinations.find((d) => d.name === 'Product analytics')!;
    const created = await fetch(`${started.control}/v2/regulations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ regulationType: 'suppress_with_delete', users: [{ userId: 'leaver' }], destinationIds: [analytics.id] }),
    });
    expect(created.ok).toBe(true);
    await page.getByRole('link', { name: 'Regulations' }).click();
    await page.getByRole('button', { name: /^leaver/ }).click();
    const deletions = page.getByRole('table', { name: 'Deletion at each destination' });
    await deletions.getByRole('cell', { name: /^Product analytics/ }).waitFor();
    expect(await shown()).not.toMatch(ID);
    await checkPage('regulations-names');

    // A destination deleted since is said to be one, not shown by its id.
    await control('DELETE', `/v2/destinations/${analytics.id}`);
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('link', { name: 'Regulations' }).click();
    await page.getByRole('button', { name: /^leaver/ }).click();
    await deletions.getByRole('cell', { name: /^a deleted destination/ }).waitFor();
    expect(await shown()).not.toMatch(ID);
  });
});
