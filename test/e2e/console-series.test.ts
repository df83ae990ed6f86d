import { checkPage, control, drawn, fitsPhone, hook, onPhone, openConsole, page, seedPipeline, sendWithSdk } from '../support/console-session';
import { json } from '../support/destination-server';
import { waitFor } from '../support/wait';

/**
 * The console's charts in a real browser: the Destinations and Sources pages draw the series API's buckets
 * (the numbers in the figure's data, its table and its accessible name are the API's), with a window picker,
 * counts or %, the window's real span and time zone; axe clean, and no sideways scroll at 390×844.
 * Website → Tagger → Hook (console-session's seedPipeline), then 4 events delivered and 6 refused.
 */
const DELIVERED = 1 + 4;
const REFUSED = 6;

type Bucket = { at: string } & Record<string, number>;
type Series = { window: { from: string; to: string; bucketSeconds: number }; buckets: Bucket[] };

let destinationId = '';
let sourceId = '';

async function seed() {
  await seedPipeline();
  await sendWithSdk(Array.from({ length: 4 }, (_, i) => ({ userId: `ok-${i}`, event: `Delivered ${i}` })));
  await waitFor(
    'the webhook to receive the events',
    () => hook.received.length,
    (n) => n >= DELIVERED,
    { timeoutMs: 30_000, everyMs: 200 },
  );
  hook.on('/hook', json(400, { reason: 'refused for the test' }));
  await sendWithSdk(Array.from({ length: REFUSED }, (_, i) => ({ userId: `no-${i}`, event: `Refused ${i}` })));
  destinationId = (await control<{ destinations: { id: string }[] }>('GET', '/v2/destinations')).destinations[0]!.id;
  sourceId = (await control<{ sources: { id: string }[] }>('GET', '/v2/sources')).sources[0]!.id;
  const failed = async () => (await control<Series>('GET', `/v2/destinations/${destinationId}/series?window=24h`)).buckets.reduce((n, b) => n + b.failed!, 0);
  await waitFor('the series to count the refused events', failed, (n) => n === REFUSED, { timeoutMs: 30_000, everyMs: 250 });
}

openConsole({ signIn: true, seed });

/** The buckets that hold events: what the chart and the API must agree on whatever the window's edge. */
const counted = (buckets: Bucket[]) => buckets.filter((b) => Object.entries(b).some(([name, n]) => name !== 'at' && n !== 0));

describe('the console’s charts', () => {
  it('draws a destination’s delivered and failed events per bucket from the series API, over the window picked', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('button', { name: /^Hook/ }).click();
    const day = await control<Series>('GET', `/v2/destinations/${destinationId}/series?window=24h`);
    expect(counted(await drawn<Bucket>('Delivery'))).toEqual(counted(day.buckets));
    expect(counted(day.buckets).reduce((n, b) => n + b.delivered!, 0)).toBe(DELIVERED);
    await page.getByRole('img', { name: `Delivery, ${DELIVERED} delivered, ${REFUSED} failed, 0 filtered, 0 retrying, hourly buckets from ` }).waitFor();
    await expect(page.getByTestId('delivery-span').textContent()).resolves.toMatch(
      /^hourly buckets of ingestion time, .+ to .+; times in .+ \(UTC[+-]\d\d:\d\d\)\.$/,
    );

    await page.getByLabel('Window').selectOption('1h');
    await page
      .getByTestId('delivery-span')
      .filter({ hasText: /^5-minute buckets/ })
      .waitFor();
    const hour = await control<Series>('GET', `/v2/destinations/${destinationId}/series?window=1h`);
    expect(hour.window.bucketSeconds).toBe(300);
    expect(hour.buckets).toHaveLength(12);
    expect(counted(await drawn<Bucket>('Delivery'))).toEqual(counted(hour.buckets));

    await page.getByText('Delivery as a table').click();
    const table = page.getByRole('table', { name: 'Delivery per bucket' });
    await expect(table.getByRole('row').count()).resolves.toBe(13);
    await page.getByLabel('% of each bucket').check();
    const first = counted(hour.buckets)[0]!;
    const share = Math.round((1000 * first.delivered!) / (first.delivered! + first.failed! + first.filtered! + first.retrying!)) / 10;
    await table
      .getByRole('row')
      .filter({ hasText: `${share} %` })
      .first()
      .waitFor();
    await checkPage('destinations-series');
    await page.getByLabel('% of each bucket').uncheck();
  });

  it('draws a source’s received events per bucket from the series API', async () => {
    await page.getByRole('link', { name: 'Sources' }).click();
    const day = await control<Series>('GET', `/v2/sources/${sourceId}/series?window=24h`);
    expect(counted(day.buckets).reduce((n, b) => n + b.received!, 0)).toBe(DELIVERED + REFUSED);
    expect(counted(await drawn<Bucket>('Events received'))).toEqual(counted(day.buckets));
    await checkPage('sources-series');
  });

  it('fits a phone: at 390×844 neither chart page scrolls sideways, axe stays clean', async () => {
    await onPhone(async () => {
      for (const title of ['Destinations', 'Sources']) {
        if (!(await page.getByRole('navigation', { name: 'Pages' }).isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
        await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title }).click();
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        await page.locator('figure.series .uplot').waitFor();
        await page.waitForTimeout(300);
        await fitsPhone(`phone-${title.toLowerCase()}-series`);
      }
    });
  });
});
