import { setTimeout as sleep } from 'node:timers/promises';
import type { Route } from 'playwright-core';
import {
  abortedReaches,
  checkPage,
  control,
  fitsPhone,
  hook,
  lastHours,
  onPhone,
  openConsole,
  page,
  seedPipeline,
  sendWithSdk,
} from '../support/console-session';
import { json } from '../support/destination-server';

/**
 * The console in a real browser, on the destination form its definition builds (display names, descriptions,
 * examples, headers as rows) and on failed events listed newest first. It begins with Website → Tagger → Hook
 * (console-session's seedPipeline), then the hook refusing 4 events and, once they are aborted, 4 more.
 */
const BATCH = 4;
let destinationId = '';

type Failures = { failures: { messageId: string; receivedAt: string }[]; paging: { next?: string } };

async function seed() {
  await seedPipeline();
  destinationId = (await control<{ destinations: { id: string }[] }>('GET', '/v2/destinations')).destinations[0]!.id;
  hook.on('/hook', json(400, { reason: 'refused for the forms test' }));
  await sendWithSdk(Array.from({ length: BATCH }, (_, i) => ({ userId: `u-${i}`, event: `Early ${i}` })));
  await abortedReaches(destinationId, BATCH);
  await sendWithSdk(Array.from({ length: BATCH }, (_, i) => ({ userId: `u-${i}`, event: `Late ${i}` })));
  await abortedReaches(destinationId, 2 * BATCH);
}

openConsole({ signIn: true, seed });

/** The text an element's aria-describedby points at. */
const descriptionOf = async (locator: ReturnType<typeof page.locator>) => {
  const id = await locator.getAttribute('aria-describedby');
  return id ? page.locator(`[id="${id}"]`).textContent() : undefined;
};

describe('the console, on destination forms and failed events', () => {
  it('labels the webhook form with display names tied to their inputs, describes each field, and shows examples as placeholders', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    const form = page.getByRole('form', { name: 'New destination' });
    await form.getByLabel('Type').selectOption('WEBHOOK');
    const url = form.getByLabel('Webhook URL');
    await expect(url.getAttribute('id')).resolves.toBe('new-webhookUrl');
    await expect(url.getAttribute('placeholder')).resolves.toBe('https://example.com/weir/events');
    await expect(url.getAttribute('aria-required')).resolves.toBe('true');
    await expect(descriptionOf(url)).resolves.toBe('Where events are sent (http or https)');
    const label = form.locator('label[for="new-webhookUrl"]');
    await expect(label.textContent()).resolves.toBe('Webhook URL*');
    await expect(label.locator('.required[aria-hidden="true"]').count()).resolves.toBe(1);
    await expect(form.getByText('(required)').count()).resolves.toBe(0);

    const method = form.getByLabel('HTTP method');
    await expect(method.getAttribute('aria-required')).resolves.toBe('false');
    await expect(descriptionOf(method)).resolves.toBe('The method of each request; POST when not set');

    const headers = form.getByRole('group', { name: 'Headers' });
    await expect(descriptionOf(headers)).resolves.toBe('Static headers added to each request; names are lower-cased');
    await expect(headers.getByLabel('Headers 1: Header name').getAttribute('placeholder')).resolves.toBe('x-api-key');
    await expect(headers.getByLabel('Headers 1: Value').getAttribute('placeholder')).resolves.toBe('my-key');
    await checkPage('destination-form');
  });

  it('saves headers typed as rows, a colon in a value kept whole, and shows them as rows again', async () => {
    await page.getByRole('button', { name: /^Hook/ }).click();
    const form = page.getByRole('form', { name: 'Configuration' });
    const headers = form.getByRole('group', { name: 'Headers' });
    await headers.getByLabel('Headers 1: Header name').fill('x-tenant');
    await headers.getByLabel('Headers 1: Value').fill('eu:1');
    await headers.getByRole('button', { name: 'Add a row to Headers' }).click();
    await headers.getByLabel('Headers 2: Header name').fill('x-team');
    await headers.getByLabel('Headers 2: Value').fill('7');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await form.getByText('Saved.').waitFor();
    const { destination } = await control<{ destination: { config: Record<string, unknown> } }>('GET', `/v2/destinations/${destinationId}`);
    expect(destination.config).toEqual({
      webhookUrl: `${hook.url}/hook`,
      webhookMethod: 'POST',
      headers: [
        { from: 'x-tenant', to: 'eu:1' },
        { from: 'x-team', to: '7' },
      ],
    });

    // The definitions answering after the destinations: the form still fills from the saved config.
    const definitionsLate = async (route: Route) => {
      await sleep(1000);
      await route.continue();
    };
    await page.route('**/destination-definitions', definitionsLate);
    await page.reload();
    await page.getByRole('button', { name: /^Hook/ }).click();
    const again = page.getByRole('form', { name: 'Configuration' }).getByRole('group', { name: 'Headers' });
    await expect(again.getByLabel('Headers 2: Value').inputValue()).resolves.toBe('7');
    await expect(again.getByLabel('Headers 1: Value').inputValue()).resolves.toBe('eu:1');
    await page.unroute('**/destination-definitions', definitionsLate);
    await checkPage('destination-configuration');
  });

  it('lists failed events newest first, on the Delivery page and in the funnel’s aborted step', async () => {
    const oldestFirst = (await control<Failures>('GET', `/v2/destinations/${destinationId}/failures?${lastHours()}`)).failures;
    expect(oldestFirst).toHaveLength(2 * BATCH);
    const newest = oldestFirst.map((f) => f.messageId).reverse();

    await page.getByRole('link', { name: 'Delivery' }).click();
    await page.getByRole('button', { name: /^Hook/ }).click();
    const failed = page.getByRole('table', { name: 'Failed events' });
    await failed
      .getByRole('row')
      .nth(2 * BATCH)
      .waitFor();
    // Pick, Aborted, Message, …: the message is the third cell.
    const listed = await failed.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.children[2]?.textContent ?? ''));
    expect(listed).toEqual(newest);

    await page.getByTestId('step-aborted').click();
    const step = page.getByRole('table', { name: 'Newest failed events' });
    await step
      .getByRole('row')
      .nth(2 * BATCH)
      .waitFor();
    const inStep = await step.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.children[1]?.textContent ?? ''));
    expect(inStep).toEqual(newest);
    await checkPage('delivery-failures-newest');
  });

  it('fits a phone: at 390×844 the destination form does not scroll sideways, and axe stays clean', async () => {
    await onPhone(async () => {
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Destinations' }).click();
      await page.getByRole('button', { name: /^Hook/ }).click();
      await page.getByRole('form', { name: 'Configuration' }).getByRole('group', { name: 'Headers' }).waitFor();
      await fitsPhone('phone-destination-form');
    });
  });
});
