import { screenshot, seriousViolations, type AxeViolation } from '../support/browser';
import { abortedReaches, control, checkPage, hook, openConsole, page, seedPipeline, sendWithSdk, started } from '../support/console-session';
import { json } from '../support/destination-server';

/**
 * The console in a real browser, on what guards a person and fits their screen: the failed events listed page
 * after page, a question with counts before a retry of the window, a replay and each delete, regulations that
 * offer only destinations able to delete, and every page at a phone's 390×844 with no sideways scroll. It begins
 * with Website → Tagger → Hook (console-session's seedPipeline), then the hook refusing 60 events.
 */
const REFUSED = 60;

async function seed() {
  await seedPipeline();
  hook.on('/hook', json(400, { reason: 'refused for the test' }));
  await sendWithSdk(Array.from({ length: REFUSED }, (_, i) => ({ userId: `u-${i}`, event: `Refused ${i}` })));
  const { destinations } = await control<{ destinations: { id: string }[] }>('GET', '/v2/destinations');
  await abortedReaches(destinations[0]!.id, REFUSED);
  await control('PUT', '/credentials/OLD_KEY', { value: 'an-old-value', isSecret: true });
  await control('POST', '/v2/destinations', { name: 'Product analytics', type: 'AM', config: { apiKey: 'k', baseUrl: `${hook.url}/amplitude` } });
}

openConsole({ signIn: true, seed });

const dialog = () => page.getByRole('dialog');

describe('the console, guarding and fitting', () => {
  it('lists every failed event of the window, following the pages, and says how many the funnel counts', async () => {
    await page.getByRole('link', { name: 'Delivery' }).click();
    await page.getByRole('button', { name: /^Hook/ }).click();
    const failed = page.getByRole('table', { name: 'Failed events' });
    await failed.waitFor();
    await expect(page.getByTestId('failures-count').textContent()).resolves.toBe(`Listed 50 of the ${REFUSED} the funnel counts; more on the next page.`);
    await expect(failed.getByRole('row').count()).resolves.toBe(51);
    await page.getByRole('button', { name: 'Show 50 more failed events' }).click();
    await page
      .getByTestId('failures-count')
      .filter({ hasText: `Listed ${REFUSED} of the ${REFUSED} the funnel counts.` })
      .waitFor();
    await expect(failed.getByRole('row').count()).resolves.toBe(REFUSED + 1);
    await expect(page.getByRole('button', { name: 'Show 50 more failed events' }).count()).resolves.toBe(0);
    await checkPage('delivery-failures-paged');
  });

  it('asks before retrying the window, with how many events it holds, and sends nothing when cancelled', async () => {
    hook.on('/hook', json(200, { ok: true }));
    const sentBefore = hook.received.length;
    await page.getByRole('button', { name: 'Retry all in the window' }).click();
    await expect(dialog().textContent()).resolves.toContain(`Retry ${REFUSED} failed events ingested from`);
    await checkPage('delivery-retry-confirm');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog().count()).resolves.toBe(0);
    await expect(page.getByRole('status', { name: 'Retry job' }).count()).resolves.toBe(0);
    expect(hook.received.length).toBe(sentBefore);

    await page.getByRole('button', { name: 'Retry all in the window' }).click();
    await dialog()
      .getByRole('button', { name: `Retry ${REFUSED} events` })
      .click();
    await page.getByRole('status', { name: 'Retry job' }).filter({ hasText: 'done' }).waitFor({ timeout: 60_000 });
    await expect(page.getByRole('status', { name: 'Retry job' }).textContent()).resolves.toContain(`${REFUSED} sent, ${REFUSED} delivered`);
  });

  it('asks before a replay, with the number of events the source stored in the window’s hours', async () => {
    const { sources } = await control<{ sources: { id: string }[] }>('GET', '/v2/sources');
    const now = Date.now();
    const counted = await control<{ stored: number }>(
      'GET',
      `/v2/sources/${sources[0]!.id}/delivery?from=${new Date(now - 3600_000).toISOString()}&to=${new Date(now + 60_000).toISOString()}`,
    );
    expect(counted.stored).toBeGreaterThanOrEqual(REFUSED + 1);
    await page.getByRole('form', { name: 'Replay stored events' }).getByRole('button', { name: 'Replay to this destination' }).click();
    await expect(dialog().textContent()).resolves.toContain(`hold ${counted.stored} stored events`);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('table', { name: 'Replays' }).count()).resolves.toBe(0);
  });

  it('asks before each delete, naming what goes, and deletes only once confirmed', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('button', { name: 'Disconnect Website from Hook' }).click();
    await expect(dialog().textContent()).resolves.toBe(
      'Disconnect Website from Hook? No more events go this way, and its 0 rules are deleted with the connection.DisconnectCancel',
    );
    await checkPage('connections-disconnect-confirm');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect((await control<{ connections: unknown[] }>('GET', '/v2/connections')).connections).toHaveLength(1);

    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByRole('button', { name: 'Delete OLD_KEY' }).click();
    await expect(dialog().textContent()).resolves.toContain('Delete the credential OLD_KEY? Its value is gone for good');
    await dialog().getByRole('button', { name: 'Delete OLD_KEY' }).click();
    await page.getByText('No credential yet.').waitFor();
  });

  it('offers for deletion only the destinations whose type can delete users', async () => {
    await page.getByRole('link', { name: 'Regulations' }).click();
    await page.getByLabel('Type').selectOption('suppress_with_delete');
    const offered = page.getByRole('group', { name: /^Delete at/ });
    await offered.getByRole('checkbox', { name: /Product analytics/ }).waitFor();
    await expect(offered.getByRole('checkbox').count()).resolves.toBe(1);
    await expect(offered.getByText('Hook').count()).resolves.toBe(0);
    await checkPage('regulations-deletable');
  });

  it('links the configuration form to its type’s reference page, rendered into the console site', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('button', { name: /^Hook/ }).click();
    const link = page.getByRole('form', { name: 'Configuration' }).getByRole('link', { name: 'Webhook reference' });
    await expect(link.getAttribute('href')).resolves.toBe('./reference/destinations/webhook.html');
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    const opened = page.waitForEvent('popup');
    await link.click();
    const reference = await opened;
    await reference.getByRole('heading', { name: 'Webhook (WEBHOOK)', level: 1 }).waitFor();
    await reference.getByRole('heading', { name: 'What each event becomes' }).waitFor();
    expect(await seriousViolations(reference)).toEqual([]);
    // A link to another type's page stays in the site.
    const amplitude = await page.request.get(new URL('./reference/destinations/am.html', started.console + '/').toString());
    expect(amplitude.status()).toBe(200);
    await reference.close();
  });

  it('fits a phone: at 390×844 no page scrolls sideways, the menu folds behind a button, axe stays clean', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const pages = [
      'Sources',
      'Destinations',
      'Delivery',
      'Alerts',
      'Connections',
      'Transformations',
      'Regulations',
      'Event schemas',
      'Tracking plans',
      'Credentials',
    ];
    const menu = page.getByRole('button', { name: 'Menu' });
    const wider: { page: string; scrollWidth: number; past: string[] }[] = [];
    const findings: { page: string; violations: AxeViolation[] }[] = [];
    for (const title of pages) {
      await expect(page.getByRole('navigation', { name: 'Pages' }).isVisible()).resolves.toBe(false);
      await menu.click();
      await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title }).click();
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      // Let the page load its data (lists, tables) before measuring it.
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(300);
      // The page's width, and what reaches past the screen (outside a box that scrolls on its own), to say why.
      const measured = (await page.evaluate(`(() => {
        const inScroll = (el) => el.closest('.scroll, pre, .cm-editor, .diff');
        const past = [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5 && !inScroll(el.parentElement ?? el))
          .slice(0, 5)
          .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right));
        return { scrollWidth: document.documentElement.scrollWidth, past };
      })()`)) as { scrollWidth: number; past: string[] };
      if (measured.scrollWidth > 390) wider.push({ page: title, ...measured });
      const violations = await seriousViolations(page);
      if (violations.length > 0) findings.push({ page: title, violations });
      await screenshot(page, `phone-${title.toLowerCase().replace(/ /g, '-')}`);
    }
    expect({ wider, findings }).toEqual({ wider: [], findings: [] });
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
