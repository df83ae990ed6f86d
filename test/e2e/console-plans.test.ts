import { checkPage, control, fitsPhone, openConsole, page, pageWidth, seedCapturedTrial, sendWithSdk } from '../support/console-session';
import { waitFor } from '../support/wait';

/**
 * The console in a real browser, on tracking plans edited as a table and event schema versions compared: the
 * source Website holds one track, Trial Started on the pro plan, made through the API before the tests.
 */
openConsole({ signIn: true, seed: seedCapturedTrial });

describe('the console, on tracking plans and schema versions', () => {
  it('edits a plan in its table, keeps the JSON in step, saves a version the API holds, and diffs only the changed property', async () => {
    await page.getByRole('link', { name: 'Tracking plans' }).click();
    await page.getByLabel('Plan name').fill('Website plan');
    await page.getByRole('button', { name: 'Create plan from captured events' }).click();
    await page.getByRole('heading', { name: 'Website plan · version 1' }).waitFor();

    const table = page.getByRole('table', { name: 'Event specs' });
    const trial = 'track: Trial Started';
    await expect(table.getByLabel(`Property 1 of ${trial}: name`).inputValue()).resolves.toBe('plan');
    await expect(table.getByLabel(`Property 1 of ${trial}: type`).inputValue()).resolves.toBe('string');
    await expect(table.getByLabel(`Property 1 of ${trial}: required`).isChecked()).resolves.toBe(true);

    // A row added in the table: seats, an integer, required.
    await table.getByRole('button', { name: `Add property to ${trial}` }).click();
    await table.getByLabel(`Property 2 of ${trial}: name`).fill('seats');
    await table.getByLabel(`Property 2 of ${trial}: type`).selectOption('integer');
    await table.getByLabel(`Property 2 of ${trial}: required`).check();
    await table.getByLabel(`Property 2 of ${trial}: description`).fill('Seats bought');

    // The JSON view shows the row; an edit there shows in the table.
    await page.getByText('Advanced: the specs as JSON').click();
    const json = page.getByLabel(/^Specs \(JSON/);
    const specs = JSON.parse(await json.inputValue()) as { name?: string; schema: { properties: Record<string, object>; required: string[] } }[];
    const spec = specs.find((s) => s.name === 'Trial Started')!;
    expect(spec.schema.properties.seats).toEqual({ type: 'integer', description: 'Seats bought' });
    expect(spec.schema.required).toEqual(['plan', 'seats']);
    spec.schema.properties.seats = { type: 'integer', description: 'Seats bought, at least one', minimum: 1 };
    await json.fill(JSON.stringify(specs, null, 2));
    await expect(table.getByLabel(`Property 2 of ${trial}: description`).inputValue()).resolves.toBe('Seats bought, at least one');
    await table.getByText('and minimum (in the JSON)').waitFor();
    // JSON that does not parse says so and leaves the table as it was.
    await json.fill('[{');
    await page
      .getByRole('alert')
      .filter({ hasText: /^specs \(JSON\): .*the table shows the last specs that parsed$/ })
      .waitFor();
    await expect(table.getByLabel(`Property 2 of ${trial}: name`).inputValue()).resolves.toBe('seats');
    await table.getByLabel(`Property 2 of ${trial}: type`).selectOption('number');
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    expect(JSON.parse(await json.inputValue())).toEqual(JSON.parse(JSON.stringify(specs).replace('"type":"integer"', '"type":"number"')));

    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('heading', { name: 'Website plan · version 2' }).waitFor();
    const { trackingPlans } = await control<{ trackingPlans: { id: string }[] }>('GET', '/v2/tracking-plans');
    const { trackingPlan } = await control<{ trackingPlan: { version: number; specs: typeof specs } }>('GET', `/v2/tracking-plans/${trackingPlans[0]!.id}`);
    expect(trackingPlan.version).toBe(2);
    expect(trackingPlan.specs.find((s) => s.name === 'Trial Started')!.schema).toMatchObject({
      properties: { plan: { type: 'string' }, seats: { type: 'number', description: 'Seats bought, at least one', minimum: 1 } },
      required: ['plan', 'seats'],
    });

    // The diff: the one property added, not the whole spec.
    const changes = page.getByRole('table', { name: 'Changes between the two versions' });
    await changes.waitFor();
    const rows = await changes.getByRole('row').allInnerTexts();
    expect(rows.map((r) => r.split('\t').map((c) => c.trim()))).toEqual([
      ['Event', 'Property', 'Change', 'Version 1', 'Version 2'],
      [trial, 'seats', 'added', '—', 'number, required · Seats bought, at least one · {"minimum":1}'],
    ]);

    // The stats table fits its box at a laptop's width, and the page does not scroll sideways at a phone's.
    const stats = page.getByRole('region', { name: 'Tracking plan stats, scrollable' });
    await page.getByRole('table', { name: 'Tracking plan stats' }).getByRole('rowheader', { name: 'All' }).waitFor();
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      await expect(stats.evaluate((box) => box.scrollWidth - box.clientWidth)).resolves.toBeLessThanOrEqual(0);
      await expect(pageWidth()).resolves.toBeLessThanOrEqual(1440);
      await checkPage('tracking-plans-table');
      await page.setViewportSize({ width: 390, height: 844 });
      await fitsPhone('phone-tracking-plans-table');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('lists the versions of an event schema with their dates and diffs one with the version before', async () => {
    await sendWithSdk([{ userId: 'u2', event: 'Trial Started', properties: { plan: 5, seats: '3' } }]);
    const { sources } = await control<{ sources: { id: string }[] }>('GET', '/v2/sources');
    const models = await control<{ EventID: string; EventIdentifier: string }[]>('GET', `/v2/sources/${sources[0]!.id}/event-models`);
    const trial = models.find((m) => m.EventIdentifier === 'Trial Started')!;
    const versionCount = async () => (await control<unknown[]>('GET', `/v2/event-models/${trial.EventID}/versions`)).length;
    await waitFor('the second version of Trial Started', versionCount, (n) => n === 2, { timeoutMs: 20_000, everyMs: 250 });
    await page.getByRole('link', { name: 'Event schemas' }).click();
    await page.getByRole('button', { name: /^track: Trial Started/ }).click();
    const versions = page.getByRole('list', { name: 'Versions' }).getByRole('button');
    await versions.nth(1).waitFor();
    await expect(versions.count()).resolves.toBe(2);
    for (const text of await versions.allInnerTexts()) expect(text).toMatch(/^Version \d+\s+\d+ events · \d+ keys · first seen .+ · last seen .+$/);

    const ids = (await versions.allInnerTexts()).map((t) => Number(/^Version (\d+)/.exec(t)![1]));
    const [older, newer] = [Math.min(...ids), Math.max(...ids)];
    await page.getByRole('button', { name: new RegExp(`^Version ${newer}\\b`) }).click();
    const version = page.getByRole('region', { name: 'Version' });
    await version.getByRole('heading', { name: `Changes from version ${older}` }).waitFor();
    const rows = await version.getByRole('table', { name: 'Changes from the version before' }).getByRole('row').allInnerTexts();
    expect(rows.map((r) => r.split('\t').map((c) => c.trim()))).toEqual([
      ['Key', 'Change', `Version ${older}`, 'This version'],
      ['properties.plan', 'type changed', 'string', 'number'],
      ['properties.seats', 'added', '—', 'string'],
    ]);
    await page.getByRole('button', { name: new RegExp(`^Version ${older}\\b`) }).click();
    await version.getByText('The first version of this event: no version before it.').waitFor();
    await page.getByRole('button', { name: new RegExp(`^Version ${newer}\\b`) }).click();
    await checkPage('schemas-version-diff');
  });
});
