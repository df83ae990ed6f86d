import { checkPage, control, hook, hookReceives, openConsole, page, retryingReaches, seedPipeline, sendWithSdk } from '../support/console-session';
import { json, text } from '../support/destination-server';

/**
 * The console in a real browser, on what follows delivery: a refused delivery among the destination's
 * failures, the Delivery page (funnel, retry, replay), alert rules, regulations, and the rules of a
 * connection. It begins with the pipeline a new user builds (console-first-pipeline), made through the API:
 * Website → Tagger → Hook, one track delivered, and the Destinations page open.
 */
openConsole({ signIn: true, seed: seedPipeline });
beforeAll(async () => {
  await page.getByRole('link', { name: 'Destinations' }).click();
  await page.getByRole('button', { name: /^Hook/ }).waitFor();
});

describe('the console, as a new user', () => {
  it('shows a delivery the destination refused among the latest failures, with its answer', async () => {
    hook.on('/hook', json(400, { reason: 'plan not allowed here' }));
    await sendWithSdk([{ userId: 'u1', event: 'Refused Event' }]);
    await hookReceives('Refused Event');
    hook.on('/hook', json(200, { ok: true }));
    const failures = page.getByRole('table', { name: 'Latest failures' });
    await failures.waitFor();
    const row = failures.getByRole('row').filter({ hasText: 'aborted' });
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toBe('400');
    await expect(row.locator('pre').textContent()).resolves.toContain('"reason": "plan not allowed here"');
    await expect(page.getByTestId('outcome-aborted').textContent()).resolves.toBe('1');
    await checkPage('destinations-failures');
  });

  it('shows the destination’s funnel and its failed event on the Delivery page, and retries it once', async () => {
    await page.getByRole('link', { name: 'Delivery' }).click();
    const funnel = page.getByRole('list', { name: 'Funnel' });
    await funnel.waitFor();
    await expect(page.getByTestId('step-aborted').textContent()).resolves.toBe('1');
    await expect(page.getByRole('table', { name: 'Error classes' }).getByRole('cell', { name: 'http4xx' }).count()).resolves.toBe(1);
    const failed = page.getByRole('table', { name: 'Failed events' });
    const row = failed.getByRole('row').filter({ hasText: 'http4xx' });
    await expect(row.textContent()).resolves.toContain('plan not allowed here');
    await checkPage('delivery');
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Retry selected (1)' }).click();
    await page.getByRole('status', { name: 'Retry job' }).filter({ hasText: 'done' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('status', { name: 'Retry job' }).textContent()).resolves.toContain('1 sent, 1 delivered');
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Refused Event')).toHaveLength(2);
    // Nothing aborted any more: the step is folded among those with nothing.
    await page.getByTestId('step-aborted').filter({ hasText: /^0$/ }).waitFor({ state: 'attached' });
    await failed.getByRole('row').filter({ hasText: 'delivered' }).waitFor();
    await checkPage('delivery-retried');
  });

  it('replays the last hour of the source to the webhook from the Delivery page, and shows its progress', async () => {
    const before = hook.received.length;
    await page.getByRole('form', { name: 'Replay stored events' }).getByRole('button', { name: 'Replay to this destination' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Replay up to \d+ events$/ })
      .click();
    await page.getByTestId('replay-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(hook.received.length).toBeGreaterThan(before);
    await expect(page.getByRole('table', { name: 'Replays' }).textContent()).resolves.toMatch(/\d+ read, \d+ delivered/);
    await checkPage('delivery-replay');
  });

  it('sets an alert rule that tells Slack when events wait for a retry, and lists what it sent', async () => {
    hook.on('/slack', text(200, 'ok'));
    hook.on('/hook', json(503, {}));
    await sendWithSdk([{ userId: 'u-alert', event: 'Parked Event' }]);
    await hookReceives('Parked Event');
    // A rule is first evaluated in the next round, then a minute later: the event must be counted waiting before
    // the rule exists, not only sent (a loaded machine may record the park seconds after the webhook answered).
    const { destinations } = await control<{ destinations: { id: string }[] }>('GET', '/v2/destinations');
    await retryingReaches(destinations[0]!.id, 1);
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Webhook backlog');
    await page.getByLabel('When').selectOption('destination-backlog');
    await page.getByLabel('More than this many events waiting').fill('0');
    await page.getByLabel('Slack webhook URL').fill(`${hook.url}/slack`);
    await page.getByRole('button', { name: 'Create alert rule' }).click();
    await page.getByTestId('alert-state').filter({ hasText: 'firing' }).waitFor({ timeout: 30_000 });
    await page.getByRole('table', { name: 'Notifications' }).getByRole('row').filter({ hasText: 'answered 200' }).waitFor();
    const slack = hook.received.filter((r) => r.path === '/slack').map((r) => (r.json as { text: string }).text);
    expect(slack).toEqual([expect.stringContaining('Alert firing: *Webhook backlog*')]);
    // The destination mends only now: its retry must not empty the backlog before the rule's first evaluation,
    // however slowly the page was filled in.
    hook.on('/hook', json(200, { ok: true }));
    await checkPage('alerts');
  });

  it('suppresses a user, whose next events are dropped while another user’s arrive', async () => {
    await page.getByRole('link', { name: 'Regulations' }).click();
    await page.getByLabel('User IDs (comma or space separated)').fill('u-gone');
    await page.getByRole('button', { name: 'Create regulation' }).click();
    await expect(page.getByTestId('regulation-status').textContent()).resolves.toBe('active');
    await checkPage('regulations');

    await sendWithSdk([
      { userId: 'u-gone', event: 'Gone Event' },
      { userId: 'u1', event: 'After Suppression' },
    ]);
    await page.getByRole('link', { name: 'Sources' }).click();
    await page.getByRole('table', { name: 'Live events' }).getByRole('cell', { name: 'After Suppression' }).waitFor();
    await hookReceives('After Suppression');
    await expect(page.getByRole('table', { name: 'Live events' }).getByRole('cell', { name: 'Gone Event' }).count()).resolves.toBe(0);
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Gone Event')).toEqual([]);
  });

  it('edits the rules of a connection without code: a dry run on recent events, a refused save in the API’s words, then saved', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('button', { name: 'Rules of Website → Hook' }).click();
    await page.getByText('No rule: every event goes on as it is.').waitFor();
    // A drop-if rule on the event name, built from the form.
    await page.getByLabel('New rule').selectOption('drop-if');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 1 name').fill('no trials');
    await page.getByLabel('Rule 1 condition 1 path').fill('event');
    await page.getByLabel('Rule 1 condition 1 value').fill('Trial Started');
    await page.getByLabel('New rule').selectOption('sample');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 2 fraction').fill('2');
    // The dry run names what each rule would stop among the source's recent events.
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('body.rules.1.fraction: must be at most 1');
    await page.getByLabel('Rule 2 fraction').fill('1');
    await page.getByRole('button', { name: 'Dry run' }).click();
    const dry = page.getByRole('table', { name: 'Dry run' });
    await dry.waitFor();
    const stored = Number(/Of the last (\d+) events/.exec((await page.getByTestId('dry-run-summary').textContent()) ?? '')?.[1]);
    expect(stored).toBeGreaterThanOrEqual(3);
    await expect(dry.getByRole('row').filter({ hasText: 'no trials' }).getByRole('cell').nth(2).textContent()).resolves.toBe(`1 of ${stored}`);
    await expect(dry.getByRole('row').filter({ hasText: '2-sample' }).getByRole('cell').nth(2).textContent()).resolves.toBe(`0 of ${stored}`);
    await checkPage('connections-rules-dry-run');
    // Saving a refused list answers in the API's words and keeps nothing; a valid one is saved.
    await page.getByLabel('Rule 1 condition 1 test').selectOption('matches');
    await page.getByLabel('Rule 1 condition 1 value').fill('(');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^body\.rules\.0\.conditions\.0\.pattern: \/\(\/ is not a valid regular expression/);
    await page.getByLabel('Rule 1 condition 1 value').fill('^Debug ');
    await page.getByRole('button', { name: 'Remove rule 2' }).click();
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    // The earlier dry run described another list: it is gone.
    await expect(page.getByRole('table', { name: 'Dry run' }).count()).resolves.toBe(0);
    // The pipeline reloads with the saved list: its button counts the rules.
    await page.getByRole('button', { name: 'Rules of Website → Hook' }).filter({ hasText: 'Rules (1)' }).waitFor();
    const { connections } = await control<{ connections: { rules: unknown[] }[] }>('GET', '/v2/connections');
    expect(connections[0]!.rules).toEqual([
      { type: 'drop-if', name: 'no trials', match: 'all', conditions: [{ path: 'event', op: 'matches', pattern: '^Debug ' }] },
    ]);
    await checkPage('connections-rules');
    // Live: the rule stops its event, which the destination's outcomes count under the rule's name.
    await sendWithSdk([
      { userId: 'u1', event: 'Debug Ping' },
      { userId: 'u1', event: 'After Rules' },
    ]);
    await hookReceives('After Rules');
    expect(hook.received.filter((r) => (r.json as { event?: string } | undefined)?.event === 'Debug Ping')).toEqual([]);
    await page.getByRole('link', { name: 'Destinations' }).click();
    const byRule = page.getByRole('table', { name: 'Filtered by rule' });
    await expect(byRule.getByRole('row').filter({ hasText: 'no trials' }).getByRole('cell').nth(2).textContent()).resolves.toBe('1');
    await checkPage('destinations-filtered-by-rule');
  });
});
