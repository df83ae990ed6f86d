import { checkPage, control, fitsPhone, hook, hookReceives, onPhone, openConsole, page, seedPipeline, sendWithSdk } from '../support/console-session';
import { json } from '../support/destination-server';
import { waitFor } from '../support/wait';

/**
 * The console in a real browser, on what a person sees first and how a destination's events end: the overview
 * after sign-in (each source's volume, each destination's success rate and p95, alerts firing, the newest
 * failures, one click to each) and the Delivery page's funnel as a pipeline of steps, each opening its events.
 * It begins with Website → Tagger → Hook (console-session's seedPipeline, one track delivered), a rule on the
 * connection that stops `Debug …` events, then REFUSED events the hook refuses, DEBUG stopped and GOOD delivered.
 */
const REFUSED = 2;
const DEBUG = 3;
const GOOD = 4;
/** The seeded track and the good ones. */
const DELIVERED = 1 + GOOD;

interface SourceDelivery {
  received: number;
}
interface DestinationFunnel {
  routed: number;
  expanded: number;
  ruleFiltered: number;
  delivered: number;
  transformFailed: number;
  retrying: number;
  aborted: { total: number };
}

/** The last 24 hours as the overview reads them: this hour and the 23 before. */
const lastDay = () => `from=${encodeURIComponent(new Date(Date.now() - 23 * 3600_000).toISOString())}`;
let sourceId = '';
let destinationId = '';

async function seed() {
  await seedPipeline();
  const [{ sources }, { destinations }, { connections }] = await Promise.all([
    control<{ sources: { id: string }[] }>('GET', '/v2/sources'),
    control<{ destinations: { id: string }[] }>('GET', '/v2/destinations'),
    control<{ connections: { id: string }[] }>('GET', '/v2/connections'),
  ]);
  sourceId = sources[0]!.id;
  destinationId = destinations[0]!.id;
  await control('PUT', `/v2/connections/${connections[0]!.id}/rules`, {
    rules: [{ type: 'drop-if', name: 'no debug', match: 'all', conditions: [{ path: 'event', op: 'matches', pattern: '^Debug ' }] }],
  });
  hook.on('/hook', json(400, { reason: 'refused for the overview' }));
  await sendWithSdk(Array.from({ length: REFUSED }, (_, i) => ({ userId: `u-${i}`, event: `Refused ${i}` })));
  await hookReceives(`Refused ${REFUSED - 1}`);
  hook.on('/hook', json(200, { ok: true }));
  await sendWithSdk([
    ...Array.from({ length: DEBUG }, (_, i) => ({ userId: 'u-debug', event: `Debug ${i}` })),
    ...Array.from({ length: GOOD }, (_, i) => ({ userId: 'u-good', event: `Good ${i}` })),
  ]);
  const funnel = () => control<DestinationFunnel>('GET', `/v2/destinations/${destinationId}/delivery?${lastDay()}`);
  const settled = (f: DestinationFunnel) => f.aborted.total === REFUSED && f.ruleFiltered === DEBUG && f.delivered === DELIVERED;
  await waitFor('the funnel to settle', funnel, settled, { timeoutMs: 30_000, everyMs: 250 });
}

openConsole({ signIn: true, seed });

const stepCount = async (key: string) => Number(await page.getByTestId(`step-${key}`).textContent());
const STEP_KEYS = ['ruleFiltered', 'filtered', 'transformFailed', 'suppressed', 'duplicate', 'retrying', 'aborted', 'delivered'];

/** Waits until the Failed events section is on the screen (a string: it runs in the page, whose globals this file's types do not know). */
const failedEventsInView = () =>
  page.waitForFunction(
    `(() => { const top = document.getElementById('failed-events')?.getBoundingClientRect().top ?? -1; return top >= 0 && top < innerHeight; })()`,
  );

describe('the console’s overview and the funnel as a pipeline', () => {
  it('opens on the overview after sign-in: each source’s volume and each destination’s success rate as the API counts them over the last 24 hours', async () => {
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const source = await control<SourceDelivery>('GET', `/v2/sources/${sourceId}/delivery?${lastDay()}`);
    const f = await control<DestinationFunnel>('GET', `/v2/destinations/${destinationId}/delivery?${lastDay()}`);
    expect(source.received).toBe(1 + REFUSED + DEBUG + GOOD);
    const rate = (100 * f.delivered) / (f.delivered + f.aborted.total + f.transformFailed + f.retrying);
    await expect(page.getByTestId(`source-received-${sourceId}`).textContent()).resolves.toBe(String(source.received));
    await expect(page.getByTestId(`success-rate-${destinationId}`).textContent()).resolves.toBe(`${rate.toFixed(1)} %`);
    expect(rate.toFixed(1)).toBe(((100 * DELIVERED) / (DELIVERED + REFUSED)).toFixed(1));
    // The sparklines are the series API's 24 hourly buckets, adding up to the same figures.
    const hours = async (testId: string) => JSON.parse((await page.getByTestId(testId).getAttribute('data-values')) ?? '{}') as Record<string, number[]>;
    const sum = (values: number[] = []) => values.reduce((a, b) => a + b, 0);
    const sourceHours = await hours(`source-hours-${sourceId}`);
    expect(sourceHours.received).toHaveLength(24);
    expect(sum(sourceHours.received)).toBe(source.received);
    const destinationHours = await hours(`destination-hours-${destinationId}`);
    expect(sum(destinationHours.delivered)).toBe(f.delivered);
    expect(sum(destinationHours.failed)).toBe(f.aborted.total + f.transformFailed);
    const failures = page.getByRole('table', { name: 'Newest failures' });
    await expect(failures.getByRole('row').count()).resolves.toBe(1 + REFUSED);
    await expect(failures.textContent()).resolves.toContain('refused for the overview');
    await expect(page.getByTestId('alerts-firing').textContent()).resolves.toContain('No alert firing');
    await checkPage('overview');
  });

  it('takes one click from the overview to a source, a destination’s delivery, a failure and the alerts', async () => {
    await page.getByRole('table', { name: 'Sources' }).getByRole('link', { name: 'Website' }).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    await expect(page.getByRole('button', { name: /^Website/ }).getAttribute('aria-pressed')).resolves.toBe('true');

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('table', { name: 'Destinations' }).getByRole('link', { name: 'Hook' }).click();
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    await expect(page.getByRole('button', { name: /^Hook/ }).getAttribute('aria-pressed')).resolves.toBe('true');

    await page.getByRole('link', { name: 'Overview' }).click();
    const failure = page.getByRole('table', { name: 'Newest failures' }).getByRole('link').first();
    const messageId = (await failure.textContent()) ?? '';
    await failure.click();
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    const listed = page.getByRole('table', { name: 'Failed events' }).getByRole('row').filter({ hasText: messageId });
    await listed.waitFor();
    await expect(listed.isVisible()).resolves.toBe(true);
    // The link leads to the list itself: it is brought into view.
    await failedEventsInView();

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'alert rules' }).click();
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
  });

  it('shows the funnel as a pipeline whose steps add up to routed, the steps with nothing folded into one line, numbers beside their labels', async () => {
    await page.getByRole('link', { name: 'Delivery' }).click();
    await page.getByRole('list', { name: 'Funnel' }).waitFor();
    const f = await control<DestinationFunnel>('GET', `/v2/destinations/${destinationId}/delivery?${lastDay()}`);
    const routed = await stepCount('routed');
    expect(routed).toBe(f.routed + f.expanded);
    const steps = await Promise.all(STEP_KEYS.map(stepCount));
    expect(steps.reduce((a, b) => a + b, 0)).toBe(routed);
    expect(Object.fromEntries(STEP_KEYS.map((k, i) => [k, steps[i]]))).toMatchObject({ ruleFiltered: DEBUG, aborted: REFUSED, delivered: DELIVERED });
    // Five steps hold nothing: one line, which opens onto them.
    const folded = page.getByTestId('steps-empty');
    await expect(folded.textContent()).resolves.toBe('5 steps with nothing');
    await expect(page.getByTestId('step-suppressed').isVisible()).resolves.toBe(false);
    await folded.click();
    await expect(page.getByTestId('step-suppressed').isVisible()).resolves.toBe(true);
    // A count stands right after its label, not across the page.
    const label = await page.locator('.step-delivered .step-label').boundingBox();
    const number = await page.getByTestId('step-delivered').boundingBox();
    expect(number!.x - (label!.x + label!.width)).toBeLessThan(40);
    await expect(page.locator('[aria-label="Latency"]').textContent()).resolves.toMatch(/p50 \d+(\.\d+)? s, p95 \d+(\.\d+)? s/);
  });

  it('opens a step onto its events: the rule that stopped them and how many, the aborted ones with their answers, delivered samples', async () => {
    await page.getByTestId('step-ruleFiltered').click();
    const perRule = page.getByRole('table', { name: 'Stopped per rule' });
    await expect(perRule.getByRole('row').filter({ hasText: 'no debug' }).getByRole('cell').nth(2).textContent()).resolves.toBe(String(DEBUG));
    await expect(perRule.getByRole('row').filter({ hasText: 'no debug' }).getByRole('cell').first().textContent()).resolves.toBe('Website');
    const stopped = page.getByRole('table', { name: 'Samples stopped by a rule' });
    await stopped.getByRole('row').nth(DEBUG).waitFor();
    await expect(stopped.getByRole('row').filter({ hasText: 'no debug' }).count()).resolves.toBe(DEBUG);

    await page.getByTestId('step-aborted').click();
    const byClass = page.getByRole('table', { name: 'Aborted by class' });
    await expect(byClass.getByRole('row').filter({ hasText: 'a 4xx answer' }).getByRole('cell').first().textContent()).resolves.toBe(String(REFUSED));
    await expect(page.getByRole('table', { name: 'Errors of this step' }).textContent()).resolves.toContain('400');
    const first = page.getByRole('table', { name: 'Newest failed events' });
    await first.getByRole('row').nth(REFUSED).waitFor();
    await expect(first.getByRole('row').filter({ hasText: 'refused for the overview' }).count()).resolves.toBe(REFUSED);

    await page.getByTestId('step-delivered').click();
    const delivered = page.getByRole('table', { name: 'Samples delivered' });
    await delivered.getByRole('row').nth(1).waitFor();
    await expect(delivered.getByRole('row').nth(1).textContent()).resolves.toContain('200');
    await checkPage('delivery-pipeline');

    await page.getByRole('button', { name: 'Go to every failed event of the window' }).click();
    await failedEventsInView();
  });

  it('fits a phone: at 390×844 neither the overview nor the opened pipeline scrolls sideways, and axe stays clean', async () => {
    await onPhone(async () => {
      await fitsPhone('phone-delivery-pipeline');
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Overview' }).click();
      await page.getByRole('table', { name: 'Newest failures' }).waitFor();
      await fitsPhone('phone-overview');
    });
  });
});
