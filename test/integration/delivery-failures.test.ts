import { FailureRepository } from '../../shared/persistence/failure-repository';
import { deliveryRig, flowThrough, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json, messageIdsAt } from '../support/destination-server';
import { ingestItems } from '../support/ingest-items';
import { handOver } from '../support/stream-records';

/** The delivery funnel per window, failed events kept with what was sent and answered, and retry jobs over them. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();

async function pipeline(path: string) {
  const { ws, api, source, connect, batch } = await sourcePipeline(rig);
  const destination = { id: await connect(webhookAt(rig, path, 'hook')) };
  const window = () => {
    const now = Date.now();
    return { from: new Date(now - 3600_000).toISOString(), to: new Date(now + 3600_000).toISOString() };
  };
  const delivery = async () => {
    const { from, to } = window();
    const answer = await api('GET', `/v2/destinations/${destination.id}/delivery?from=${from}&to=${to}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const failures = async (query = '') => {
    const { from, to } = window();
    const answer = await api('GET', `/v2/destinations/${destination.id}/failures?from=${from}&to=${to}${query}`);
    expect(answer.status).toBe(200);
    type Listed = { id: string; messageId: string; retry?: { state: string } } & Record<string, unknown>;
    return answer.body as { failures: Listed[]; paging: { next?: string } };
  };
  return { ws, api, source, destination, batch, window, delivery, failures };
}

const idsAt = (path: string) => messageIdsAt(rig.server, path);
const flow = (rounds = 1) => flowThrough(rig, rounds);

describe('the delivery funnel', () => {
  it('adds up per window: routed = delivered + aborted by class + retrying, with latency and error classes', async () => {
    const p = await pipeline('/funnel');
    let flaky = 0;
    rig.server.on('/funnel', (req, res) => {
      const id = String((JSON.parse(String(req.body ?? '{}')) as { messageId?: string }).messageId ?? '');
      if (id.startsWith('bad')) return json(400, { error: 'bad field' })(req, res);
      if (id.startsWith('flaky') && ++flaky === 1) return json(503, {})(req, res);
      return json(200, {})(req, res);
    });
    const events = ['ok-1', 'ok-2', 'ok-3', 'bad-1', 'bad-2', 'flaky-1'].map((messageId) => ({
      type: 'track',
      event: 'E',
      userId: `u-${messageId}`,
      messageId,
    }));
    await p.batch(events);
    await rig.rt.poller.drain();
    expect(await p.delivery()).toMatchObject({ routed: 6, delivered: 3, retrying: 1, aborted: { total: 2, http4xx: 2 }, suppressed: 0, filtered: 0 });
    await flow(3);
    const after = await p.delivery();
    expect(after).toMatchObject({ routed: 6, expanded: 0, delivered: 4, retrying: 0, aborted: { total: 2, http4xx: 2, config: 0, vendor: 0 } });
    expect(after.latencyMs.delivered).toBe(4);
    expect(after.latencyMs.p50).toBeGreaterThan(0);
    expect(after.latencyMs.p95).toBeGreaterThanOrEqual(after.latencyMs.p50);
    expect(after.errorClasses).toEqual([{ class: 'http4xx', status: 400, count: 2, sample: 'destination answered 400: {"error":"bad field"}' }]);
    // A window before the events holds none of them.
    const before = await p.api('GET', `/v2/destinations/${p.destination.id}/delivery?from=2020-01-01T00:00:00Z&to=2020-01-01T05:00:00Z`);
    expect(before.body).toMatchObject({ routed: 0, delivered: 0, window: { from: '2020-01-01T00:00:00.000Z', to: '2020-01-01T05:00:00.000Z' } });
  });

  it('answers 400 naming the parameter for a bad window, and 404 for another workspace’s destination', async () => {
    const p = await pipeline('/any');
    expect((await p.api('GET', `/v2/destinations/${p.destination.id}/delivery?from=yesterday`)).body.error).toMatch(/^query\.from: /);
    expect((await p.api('GET', `/v2/destinations/${p.destination.id}/delivery?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`)).status).toBe(400);
    const other = await pipeline('/other');
    expect((await other.api('GET', `/v2/destinations/${p.destination.id}/delivery?from=${p.window().from}`)).status).toBe(404);
    expect((await other.api('GET', `/v2/destinations/${p.destination.id}/failures?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`)).status).toBe(404);
  });
});

describe("a source's funnel", () => {
  it('counts received = stored + refused by reason, each stored part once however often the stream hands it over', async () => {
    const p = await pipeline('/source-funnel');
    rig.server.on('/source-funnel', json(200, {}));
    const big = { type: 'track', event: 'Big', userId: 'u', messageId: 'big', properties: { blob: 'x'.repeat(40 * 1024) } };
    await p.batch([{ type: 'track', event: 'A', userId: 'u', messageId: 's-1' }, big, { type: 'track', event: 'B', userId: 'u', messageId: 's-2' }]);
    await p.batch([{ type: 'track', event: 'C', userId: 'v', messageId: 's-3' }]);
    await rig.rt.poller.drain();
    const read = async () => {
      const { from, to } = p.window();
      return (await p.api('GET', `/v2/sources/${p.source.id}/delivery?from=${from}&to=${to}`)).body;
    };
    expect(await read()).toMatchObject({ received: 4, stored: 3, refused: { total: 1, oversized: 1, throttled: 0 } });
    const [item] = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    expect(await handOver([item!], 'again')).toEqual({ batchItemFailures: [] });
    expect(await read()).toMatchObject({ received: 4, stored: 3 });
    expect(await p.delivery()).toMatchObject({ routed: 3, delivered: 3 });
  });
});

describe('failed events', () => {
  it('are kept with the event, what was sent and what came back; a retry of the window delivers each once, and again sends nothing', async () => {
    const p = await pipeline('/refuses');
    let fixed = false;
    rig.server.on('/refuses', (req, res) => (fixed ? json(200, {}) : json(422, { error: 'unknown field colour' }))(req, res));
    const events = Array.from({ length: 5 }, (_, i) => ({
      type: 'track',
      event: 'Order',
      userId: `user-${i}`,
      messageId: `refused-${i}`,
      properties: { colour: 'red' },
    }));
    await p.batch(events);
    await rig.rt.poller.drain();
    const listed = await p.failures();
    expect(listed.failures.map((f) => f.messageId).sort()).toEqual(events.map((e) => e.messageId));
    expect(listed.failures[0]).toMatchObject({
      id: expect.any(String),
      sourceId: p.source.id,
      reason: 'http4xx',
      error: expect.stringContaining('422'),
      event: { event: 'Order', properties: { colour: 'red' } },
      requests: [
        expect.objectContaining({
          endpoint: expect.stringContaining('/refuses'),
          body: expect.objectContaining({ JSON: expect.objectContaining({ messageId: expect.any(String) }) }),
        }),
      ],
      answer: { status: 422, body: '{"error":"unknown field colour"}' },
      attempts: [{ at: expect.any(String), status: 422, error: expect.any(String) }],
    });
    expect((await p.failures('&reason=vendor')).failures).toHaveLength(0);
    expect(await p.delivery()).toMatchObject({ routed: 5, delivered: 0, aborted: { http4xx: 5 } });

    fixed = true;
    rig.server.received.length = 0;
    const started = await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, { ...p.window(), reason: 'http4xx' });
    expect(started.status).toBe(202);
    expect(started.body.job).toMatchObject({ kind: 'retry', status: 'running', progress: { sent: 0 } });
    await rig.rt.scheduler.runNow();
    const job = (await p.api('GET', `/v2/destinations/${p.destination.id}/jobs/${started.body.job.id}`)).body.job;
    expect(job).toMatchObject({ status: 'done', progress: { selected: 5, sent: 5, delivered: 5, failed: 0, skipped: 0 }, finishedAt: expect.any(String) });
    expect(idsAt('/refuses').sort()).toEqual(events.map((e) => e.messageId));
    expect(await p.delivery()).toMatchObject({ routed: 5, delivered: 5, aborted: { total: 0, http4xx: 0 } });
    expect((await p.api('GET', `/v2/destinations/${p.destination.id}/outcomes`)).body).toMatchObject({ delivered: 5, aborted: 0 });
    expect((await p.failures()).failures.every((f) => f.retry?.state === 'delivered')).toBe(true);

    // The same request again, and a retry by ids: nothing is sent twice.
    const again = await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, { ...p.window(), reason: 'http4xx' });
    const byIds = await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, { ids: listed.failures.map((f) => f.id) });
    await rig.rt.scheduler.runNow();
    for (const id of [again.body.job.id, byIds.body.job.id]) {
      expect((await p.api('GET', `/v2/destinations/${p.destination.id}/jobs/${id}`)).body.job).toMatchObject({
        status: 'done',
        progress: { selected: 5, sent: 0, skipped: 5 },
      });
    }
    expect(idsAt('/refuses')).toHaveLength(5);
  });

  it('of a suppressed user are never shown nor retried', async () => {
    const p = await pipeline('/refuses-all');
    rig.server.on('/refuses-all', json(400, {}));
    await p.batch(['kept', 'hidden'].map((userId) => ({ type: 'track', event: 'E', userId, messageId: `m-${userId}` })));
    await rig.rt.poller.drain();
    expect((await p.failures()).failures).toHaveLength(2);
    expect((await p.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'hidden' }] })).status).toBeLessThan(300);
    expect((await p.failures()).failures.map((f) => f.messageId)).toEqual(['m-kept']);
    rig.server.on('/refuses-all', json(200, {}));
    rig.server.received.length = 0;
    const started = await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, p.window());
    await rig.rt.scheduler.runNow();
    expect((await p.api('GET', `/v2/destinations/${p.destination.id}/jobs/${started.body.job.id}`)).body.job.progress).toMatchObject({ sent: 1, skipped: 1 });
    expect(idsAt('/refuses-all')).toEqual(['m-kept']);
  });

  it('of a user deleted are removed by the deletion job, the others keeping their ids', async () => {
    const p = await pipeline('/refuses-deleted');
    rig.server.on('/refuses-deleted', json(400, {}));
    await p.batch(['stays', 'goes'].map((userId) => ({ type: 'track', event: 'E', userId, messageId: `d-${userId}` })));
    await rig.rt.poller.drain();
    const ids = new Map((await p.failures()).failures.map((f) => [f.messageId, f.id]));
    const created = await p.api('POST', '/v2/regulations', { regulationType: 'suppress_with_delete', users: [{ userId: 'goes' }] });
    expect(created.status).toBeLessThan(300);
    await rig.rt.poller.drain();
    const stored = new FailureRepository(rig.rt.store);
    const { from, to } = p.window();
    const kept = await stored.page(p.ws.workspaceId, p.destination.id, { from, to }, undefined, 50);
    expect(kept.failures.map((f) => f.failure.messageId)).toEqual(['d-stays']);
    expect((await p.failures()).failures.map((f) => f.id)).toEqual([ids.get('d-stays')]);
  });

  it('answers 400 for a retry that names no failure, and pages the listing', async () => {
    const p = await pipeline('/paged');
    rig.server.on('/paged', json(400, {}));
    expect((await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, { ids: ['nope'] })).body.error).toBe('body.ids.0: not a failure id');
    expect((await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, {})).status).toBe(400);
    for (let i = 0; i < 3; i++) await p.batch([{ type: 'track', event: 'E', userId: `u${i}`, messageId: `p-${i}` }]);
    await rig.rt.poller.drain();
    const first = await p.failures('&limit=2');
    expect(first.failures).toHaveLength(2);
    const rest = await p.failures(`&limit=2&after_cursor=${first.paging.next}`);
    expect([...first.failures, ...rest.failures].map((f) => f.messageId).sort()).toEqual(['p-0', 'p-1', 'p-2']);
    expect(rest.paging.next).toBeUndefined();
  });
});
