import { deliveryRig, flowUntil, webhookPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';

/**
 * "Every event accounted for" holds in the list a person retries from: over the funnel's own window, each event
 * the funnel counts aborted is listed once, page after page, or counted as withheld (a suppressed or deleted
 * user's), and a retry of the window takes exactly what was listed.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();
// 120 events, a quarter refused and some retried until their window ends, then paged twice: a minute or more on a loaded machine.
jest.setTimeout(180_000);

type Page = {
  failures: { id: string; messageId: string; userId?: string; receivedAt: string }[];
  withheld?: { suppressed: number; deleted: number };
  paging: { next?: string };
};
const refusedOutright = (n: number) => n % 4 === 0;
const failingUntilExpired = (n: number) => n % 15 === 7 && !refusedOutright(n);
const numberOf = (id: string) => Number(id.split('-')[1]);

async function refusingAQuarter() {
  const p = await webhookPipeline(rig, '/refuses-a-quarter');
  rig.server.on('/refuses-a-quarter', (req, res) => {
    const n = numberOf(String((JSON.parse(String(req.body ?? '{}')) as { messageId?: string }).messageId ?? ''));
    if (refusedOutright(n)) return json(400, { error: 'refused' })(req, res);
    if (failingUntilExpired(n)) return json(503, { error: 'down' })(req, res);
    return json(200, {})(req, res);
  });
  const events = Array.from({ length: 120 }, (_, i) => ({ type: 'track', event: 'Order', userId: `user-${i % 9}`, messageId: `m-${i}` }));
  for (let i = 0, k = 0; i < events.length; k++) {
    const size = [1, 7, 20, 3, 30][k % 5]!;
    await p.send(events.slice(i, i + size));
    i += size;
  }
  // Rounds until nothing is retrying: the 503s' window (150 ms) has ended and each is aborted.
  await flowUntil(rig, async () => (await p.api('GET', `/v2/destinations/${p.hook.id}/outcomes`)).body.retrying === 0, 8);
  const aborted = events.map((e) => e.messageId).filter((id) => refusedOutright(numberOf(id)) || failingUntilExpired(numberOf(id)));
  return { ...p, aborted };
}

async function accounted(p: Awaited<ReturnType<typeof refusingAQuarter>>, window: { from: string; to: string }, order?: 'newest') {
  const query = `from=${window.from}&to=${window.to}`;
  const funnel = (await p.api('GET', `/v2/destinations/${p.hook.id}/delivery?${query}`)).body as {
    window: { from: string };
    aborted: { total: number };
    retrying: number;
  };
  const listed: Page['failures'] = [];
  const withheld = { suppressed: 0, deleted: 0 };
  let pages = 0;
  for (let after = ''; ;) {
    const answer = await p.api('GET', `/v2/destinations/${p.hook.id}/failures?${query}&limit=7${order ? `&order=${order}` : ''}${after}`);
    expect(answer.status).toBe(200);
    const page = answer.body as Page;
    pages++;
    listed.push(...page.failures);
    withheld.suppressed += page.withheld?.suppressed ?? 0;
    withheld.deleted += page.withheld?.deleted ?? 0;
    if (!page.paging.next) return { funnel, listed, withheld, pages, window: answer.body.window as { from: string } | undefined };
    after = `&after_cursor=${page.paging.next}`;
  }
}

it('lists every event the funnel counts aborted once over several pages, with a suppressed and a deleted user’s counted as withheld', async () => {
  const p = await refusingAQuarter();
  expect(await p.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'user-1' }] })).toMatchObject({ status: 201 });
  expect(await p.api('POST', '/v2/regulations', { regulationType: 'suppress_with_delete', users: [{ userId: 'user-2' }] })).toMatchObject({ status: 201 });
  await rig.rt.poller.drain();

  const now = Date.now();
  const { funnel, listed, withheld, pages } = await accounted(p, { from: new Date(now - 3600_000).toISOString(), to: new Date(now + 3600_000).toISOString() });
  expect(funnel).toMatchObject({ retrying: 0, aborted: { total: p.aborted.length } });
  expect(pages).toBeGreaterThan(3);
  expect(new Set(listed.map((f) => f.id)).size).toBe(listed.length);
  const ofUser = (user: string) => p.aborted.filter((id) => `user-${numberOf(id) % 9}` === user).length;
  expect(withheld).toEqual({ suppressed: ofUser('user-1'), deleted: ofUser('user-2') });
  expect(listed.map((f) => f.messageId).sort()).toEqual(p.aborted.filter((id) => !['user-1', 'user-2'].includes(`user-${numberOf(id) % 9}`)).sort());
  expect(listed.length + withheld.suppressed + withheld.deleted).toBe(funnel.aborted.total);

  // "Retry all in the window" takes what was listed: the suppressed user's are looked at and skipped.
  const window = { from: new Date(now - 3600_000).toISOString(), to: new Date(now + 3600_000).toISOString() };
  const started = await p.api('POST', `/v2/destinations/${p.hook.id}/failures/retry`, window);
  expect(started.status).toBe(202);
  await rig.rt.scheduler.runNow();
  const job = (await p.api('GET', `/v2/destinations/${p.hook.id}/jobs/${started.body.job.id}`)).body.job;
  expect(job).toMatchObject({ status: 'done', progress: { selected: listed.length + withheld.suppressed, sent: listed.length, skipped: withheld.suppressed } });
});

// The two tests below only read: they share one pipeline (its 120 events take most of a test's time).
let readOnly: ReturnType<typeof refusingAQuarter> | undefined;
const sharedPipeline = () => (readOnly ??= refusingAQuarter());

it('lists over the whole hours the funnel counts for the same from and to, and says which', async () => {
  const p = await sharedPipeline();
  // From a moment after the events were ingested: the funnel counts their hour whole, and so does the listing.
  const window = { from: new Date(Date.now()).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
  const { funnel, listed, withheld, window: listedWindow } = await accounted(p, window);
  expect(listed.length + withheld.suppressed + withheld.deleted).toBe(funnel.aborted.total);
  expect(listedWindow).toEqual(funnel.window);
});

it('lists newest first with order=newest, page after page, each event the funnel counts aborted still listed once', async () => {
  const p = await sharedPipeline();
  const now = Date.now();
  const window = { from: new Date(now - 3600_000).toISOString(), to: new Date(now + 3600_000).toISOString() };
  const oldest = await accounted(p, window);
  const newest = await accounted(p, window, 'newest');
  expect(newest.pages).toBeGreaterThan(3);
  expect(new Set(newest.listed.map((f) => f.id)).size).toBe(newest.listed.length);
  expect(newest.listed.length + newest.withheld.suppressed + newest.withheld.deleted).toBe(newest.funnel.aborted.total);
  expect(newest.listed.map((f) => f.messageId).sort()).toEqual([...p.aborted].sort());
  expect(newest.listed.map((f) => f.id)).toEqual(oldest.listed.map((f) => f.id).reverse());
  const received = newest.listed.map((f) => f.receivedAt);
  expect(received).toEqual([...received].sort().reverse());
});
