import { setTimeout as sleep } from 'node:timers/promises';
import { screenshot } from '../support/browser';
import { TOKEN, checkPage, fitsPhone, onPhone, openConsole, page, seedCapturedTrial, sendWithSdk, started, streamText } from '../support/console-session';
import { waitFor } from '../support/wait';

/**
 * The console in a real browser, on the shape of the events: the Event schemas page and tracking plans made
 * from the captured events. The source Website holds one track, Trial Started on the pro plan, made through
 * the API before the tests.
 */
openConsole({ signIn: true, seed: seedCapturedTrial });

describe('the console, as a new user', () => {
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

  it('shows the key tree with every parent row and JSON type names, and says a key of unique values is high cardinality', async () => {
    await sendWithSdk(
      Array.from({ length: 25 }, (_, i) => ({
        userId: `buyer-${i}`,
        event: 'Order Completed',
        properties: { coupon_code: `C-${i}`, plan: i % 5 ? 'pro' : 'free' },
      })),
    );
    await page.getByRole('link', { name: 'Event schemas' }).click();
    const model = page.getByRole('button', { name: /^track: Order Completed 25 events/ });
    await model.waitFor({ timeout: 20_000 });
    await model.click();
    const tree = page.getByRole('table', { name: 'Schema', exact: true });
    await tree.getByRole('cell', { name: 'coupon_code (properties.coupon_code)' }).waitFor();
    const keys = (await tree.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t')[0]!.trim());
    const parent = keys.indexOf('properties');
    // The parent has its own row, right above its keys, whatever sorts before it.
    expect(keys.slice(parent, parent + 3)).toEqual(['properties', 'coupon_code (properties.coupon_code)', 'plan (properties.plan)']);
    const library = keys.indexOf('library');
    expect(keys.slice(library, library + 2)).toEqual(['library', 'name (context.library.name)']);
    expect(keys.indexOf('context')).toBeLessThan(library);
    const row = (key: string) => tree.getByRole('row').filter({ has: page.getByRole('cell', { name: key, exact: true }) });
    await expect(row('properties').getByRole('cell').nth(1).textContent()).resolves.toBe('object');
    await expect(row('plan (properties.plan)').getByRole('cell').nth(1).textContent()).resolves.toBe('string');
    await expect(page.getByText(/float64|bool\b/).count()).resolves.toBe(0);

    const coupon = page.getByRole('group', { name: 'Frequent values of properties.coupon_code' });
    await coupon.getByText('high cardinality (~25 distinct)').waitFor();
    await expect(coupon.locator('.bar').count()).resolves.toBe(0);
    const plan = page.getByRole('group', { name: 'Frequent values of properties.plan' });
    await expect(plan.locator('.bar').allTextContents()).resolves.toEqual(['pro80.0 %', 'free20.0 %']);
    await page.getByRole('button', { name: /^Version \d+ .* first seen .* last seen / }).waitFor();
    await checkPage('schemas-tree');
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
    await page.getByText('Advanced: the specs as JSON').click();
    await page.getByLabel(/^Specs/).fill(JSON.stringify(specs, null, 2));
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('heading', { name: 'Website plan · version 2' }).waitFor();
    await page
      .getByRole('table', { name: 'Changes between the two versions' })
      .getByRole('row')
      .filter({ hasText: /^track: Trial Started\s*seats\s*added\s*—\s*string, required$/ })
      .waitFor();

    await page.getByLabel('Mode').selectOption('drop-event');
    await page.getByRole('button', { name: 'Hold source to version 2' }).click();
    await page.getByRole('list', { name: 'Sources held to this plan' }).getByText('Website: version 2, drop-event, unplanned events allowed').waitFor();
    // Ingestion keeps a write key's source 5 s: the plan applies after that.
    await sleep(5500);
    await sendWithSdk([
      { userId: 'u1', event: 'Trial Started', properties: { plan: 'pro', seats: '3', coupon: 'X' } },
      { userId: 'u2', event: 'Trial Started', properties: { plan: 'pro' } },
    ]);
    const stats = page.getByRole('table', { name: 'Tracking plan stats' });
    const row = stats.getByRole('row').filter({ hasText: 'track: Trial Started' });
    // Total, validated, with violations, dropped, then the violation types counted.
    const counted = async () => (await row.getByRole('cell').allTextContents()).slice(3, 8).join(' ');
    await waitFor('the plan row to count the events', counted, (text) => text === '2 1 1 1 Required-Missing: 1', { timeoutMs: 20_000, everyMs: 250 });
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

  it('opens a live event as formatted JSON, filters by type, name and user, pauses, and marks violations, drops, refusals and duplicates', async () => {
    const { sources } = (await (await fetch(`${started.control}/v2/sources`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      sources: { writeKey: string }[];
    };
    const send = (body: Record<string, unknown>) =>
      fetch(`${started.data}/v1/track`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${sources[0]!.writeKey}:`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const again = { userId: 'repeat-user', event: 'Trial Started', messageId: 'repeated-1', properties: { plan: 'pro', seats: '2' } };
    expect((await send(again)).status).toBe(200);
    await page.getByRole('link', { name: 'Sources' }).click();
    const table = page.getByRole('table', { name: 'Live events' });
    const rows = table.getByRole('row').filter({ hasText: 'repeat-user' });
    await rows.first().waitFor();
    expect((await send(again)).status).toBe(200);
    expect((await send({ userId: 'u9', event: 'Huge Upload', properties: { blob: 'x'.repeat(40_000) } })).status).toBe(413);
    await rows.nth(1).waitFor();

    // Marks: the repeat says it is a duplicate, the event the plan dropped says so with its violation, the refused its reason.
    await expect(rows.first().getByRole('cell').nth(4).textContent()).resolves.toMatch(/^duplicate of one received .+/);
    await expect(rows.nth(1).getByRole('cell').nth(4).textContent()).resolves.toBe('');
    const dropped = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'u2', exact: true }) });
    await expect(dropped.getByRole('cell').nth(4).textContent()).resolves.toBe('1 violationdropped by the tracking plan');
    const refused = table.getByRole('row').filter({ hasText: 'Huge Upload' });
    await expect(refused.getByRole('cell').nth(4).textContent()).resolves.toMatch(/^Refused: event is \d+ bytes, over the limit of 32768$/);

    // Opened: the whole event, formatted.
    await rows.nth(1).getByRole('button').click();
    const json = table.locator('tr.expanded pre.json');
    await expect(json.textContent()).resolves.toContain('\n  "messageId": "repeated-1",\n');
    await expect(rows.nth(1).getByRole('button').getAttribute('aria-expanded')).resolves.toBe('true');
    await checkPage('sources-live-events-marks');

    // Filters: by user, by type, by event name.
    const filters = page.getByRole('search', { name: 'Filter live events' });
    await filters.getByLabel('User').fill('repeat');
    await expect(table.getByRole('row').count()).resolves.toBe(1 + 2 + 1); // the header, both rows, the opened JSON
    await filters.getByLabel('Type').selectOption('identify');
    await expect(table.getByRole('row').count()).resolves.toBe(1);
    await filters.getByLabel('Type').selectOption('');
    await filters.getByLabel('User').fill('');
    await filters.getByLabel('Event name').fill('huge');
    await expect(table.getByRole('row').count()).resolves.toBe(2);
    await page
      .getByTestId('live-filtered')
      .filter({ hasText: /^Showing 1 of the \d+ latest events\.$/ })
      .waitFor();
    await filters.getByLabel('Event name').fill('');

    // Paused, nothing new shows; resumed, it does.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page
      .getByTestId('live-state')
      .filter({ hasText: /^Paused: the events as of / })
      .waitFor();
    expect((await send({ userId: 'late-user', event: 'After Pause' })).status).toBe(200);
    await page.waitForTimeout(4500);
    await expect(table.getByRole('cell', { name: 'After Pause' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await table.getByRole('cell', { name: 'After Pause', exact: true }).waitFor();

    // At a phone's width, with an event opened, neither this page nor the schema page scrolls sideways.
    await onPhone(async () => {
      await fitsPhone('phone-sources-live-events');
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Event schemas' }).click();
      await page.getByRole('button', { name: /^track: Order Completed/ }).click();
      await page.getByRole('group', { name: 'Frequent values of properties.coupon_code' }).waitFor();
      await fitsPhone('phone-schemas-tree');
    });
  });
});
