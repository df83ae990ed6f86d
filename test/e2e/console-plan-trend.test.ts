import { setTimeout as sleep } from 'node:timers/promises';
import { WRITE_KEY_CACHE_MS } from '../../shared/domain/ingestion/write-keys';
import { checkPage, control, drawn, fitsPhone, onPhone, openConsole, page, seedCapturedTrial, sendWithSdk } from '../support/console-session';
import { waitFor } from '../support/wait';

/**
 * The console in a real browser, on a tracking plan over time: its plan page draws the plan's series API with
 * the series chart (the numbers in the figure's data are the API's) and lists the newest offending events from
 * the violations API, newest first, each with its violations; axe clean, and no sideways scroll at 390×844.
 * The source Website (console-session's seedCapturedTrial) is held to a plan that requires Trial Started's `plan`, a string.
 */
const SPEC = {
  type: 'track',
  name: 'Trial Started',
  schema: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
};

type Bucket = { at: string } & Record<string, number | Record<string, number>>;
type Series = { window: { from: string; to: string; bucketSeconds: number }; buckets: Bucket[] };
type Violations = { events: { messageId: string; event?: string; violations: { type: string; message: string }[] }[] };

let planId = '';

async function seed() {
  await seedCapturedTrial();
  const { sources } = await control<{ sources: { id: string }[] }>('GET', '/v2/sources');
  const { trackingPlan } = await control<{ trackingPlan: { id: string } }>('POST', '/v2/tracking-plans', { name: 'Trial plan', specs: [SPEC] });
  planId = trackingPlan.id;
  await control('PUT', `/v2/sources/${sources[0]!.id}/tracking-plan`, { planId, mode: 'observe' });
  // Ingestion reads the source (and its plan) with its write key, kept a few seconds in the process.
  await sleep(WRITE_KEY_CACHE_MS + 500);
  await sendWithSdk([
    { userId: 'a', event: 'Trial Started', properties: { plan: 'pro' } },
    { userId: 'b', event: 'Trial Started', properties: { seats: 3 } },
  ]);
  await sendWithSdk([{ userId: 'c', event: 'Trial Started', properties: { plan: 7 } }]);
  const listed = async () => (await control<Violations>('GET', `/v2/tracking-plans/${planId}/violations`)).events.length;
  await waitFor('the plan to list its offending events', listed, (n) => n >= 2, { timeoutMs: 20_000, everyMs: 250 });
}

openConsole({ signIn: true, seed });

/** The API's buckets as the chart reads them: each violation type's count beside the others. */
const flat = (buckets: Bucket[]) =>
  buckets.map(({ violations, ...counts }) => ({
    ...counts,
    ...Object.fromEntries(
      ['Required-Missing', 'Datatype-Mismatch', 'Additional-Properties', 'Unplanned-Event', 'Unknown-Violation'].map((t) => [
        t,
        (violations as Record<string, number>)[t] ?? 0,
      ]),
    ),
  }));

async function openPlan() {
  await page.getByRole('link', { name: 'Tracking plans' }).click();
  await page.getByRole('button', { name: /^Trial plan/ }).click();
  await page.getByRole('heading', { name: 'Trial plan · version 1' }).waitFor();
}

describe('the console, on a tracking plan over time', () => {
  it('draws the plan’s violations per bucket from the series API, over the window picked', async () => {
    await openPlan();
    const day = await control<Series>('GET', `/v2/tracking-plans/${planId}/series?window=24h`);
    expect(await drawn<Bucket>('Events validated')).toEqual(flat(day.buckets));
    const sum = (name: string) => day.buckets.reduce((n, b) => n + Number(b[name]), 0);
    expect([sum('total'), sum('validated'), sum('withViolations')]).toEqual([3, 1, 2]);
    await page.getByRole('img', { name: /^Events validated, 2 with violations, 0 dropped, 1 valid, 1 Required-Missing, 1 Datatype-Mismatch, / }).waitFor();

    await page.getByLabel('Window').selectOption('1h');
    await page
      .getByTestId('events-validated-span')
      .filter({ hasText: /^5-minute buckets/ })
      .waitFor();
    const hour = await control<Series>('GET', `/v2/tracking-plans/${planId}/series?window=1h`);
    expect(hour.buckets).toHaveLength(12);
    expect(await drawn<Bucket>('Events validated')).toEqual(flat(hour.buckets));
  });

  it('lists the newest offending events, newest first, each with its violation type and message', async () => {
    const api = await control<Violations>('GET', `/v2/tracking-plans/${planId}/violations`);
    const table = page.getByRole('table', { name: 'Sample offending events' });
    await table.waitFor();
    const rows = (await table.getByRole('row').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    expect(rows[0]).toEqual(['Received', 'Event', 'Source', 'Violations', 'Message id']);
    expect(rows.slice(1).map((r) => r[4])).toEqual(api.events.map((e) => e.messageId));
    expect(rows.slice(1).map((r) => [r[1], r[2], r[3]])).toEqual([
      ['track: Trial Started', 'Website', 'Datatype-Mismatch: must be string'],
      ['track: Trial Started', 'Website', "Required-Missing: must have required property 'plan'"],
    ]);
    await checkPage('tracking-plans-trend');
  });

  it('fits a phone: at 390×844 the plan page does not scroll sideways, axe stays clean', async () => {
    await onPhone(async () => {
      await page.locator('figure.series .uplot').waitFor();
      await page.waitForTimeout(300);
      await fitsPhone('phone-tracking-plans-trend');
    });
  });
});
