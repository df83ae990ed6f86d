import { setTimeout as sleep } from 'node:timers/promises';
import { replayRunner } from '../../shared/composition/replay-runner';
import { servicesOver } from '../../shared/services';
import { DEFAULT_INGEST_SHARDS, eventShard } from '../../shared/domain/ingestion/shards';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json, messageIdsAt } from '../support/destination-server';

/** Replays of a source's stored events to a destination (SPEC-silent; docs/guides/operations/replays.md). */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
const rig = deliveryRig();

const events = (prefix: string, users: string[]) => users.map((user, i) => ({ type: 'track', event: 'Played', userId: user, messageId: `${prefix}-${i}` }));

async function workspace() {
  const { api, source, batch: send } = await sourcePipeline(rig);
  const webhook = async (path: string) => {
    rig.server.on(path, json(200, {}));
    return (await api('POST', '/v2/destinations', webhookAt(rig, path))).body.destination.id as string;
  };
  return { api, source, send, webhook, received: (path: string) => messageIdsAt(rig.server, path) };
}

/** Sends one request at a time, a moment apart, and returns the window that holds the middle ones. */
async function storeAroundWindow(w: Awaited<ReturnType<typeof workspace>>, inside: Record<string, unknown>[][]) {
  await w.send(events('before', ['u1']));
  await sleep(20);
  const from = new Date().toISOString();
  for (const batch of inside) await w.send(batch);
  await sleep(20);
  const to = new Date().toISOString();
  await sleep(20);
  await w.send(events('after', ['u1']));
  await rig.rt.poller.drain();
  return { from, to };
}

async function settle(w: Awaited<ReturnType<typeof workspace>>, id: string) {
  for (let i = 0; i < 20; i++) {
    const replay = (await w.api('GET', `/v2/replays/${id}`)).body;
    if (replay.status !== 'running') return replay;
    await rig.rt.scheduler.runNow();
  }
  throw new Error(`replay ${id} did not end`);
}

describe('replays', () => {
  it("sends a window's stored events to a destination created after them, minus users suppressed since, keeping their messageIds, once", async () => {
    const w = await workspace();
    const inside = [events('in-a', ['u1', 'u2', 'u3']), events('in-b', ['u3', 'u4'])];
    const window = await storeAroundWindow(w, inside);
    // Each request is stored as one part a user shard.
    const parts = inside.reduce((sum, batch) => sum + new Set(batch.map((e) => eventShard(e, DEFAULT_INGEST_SHARDS))).size, 0);
    const regulation = await w.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'u3' }] });
    expect(regulation.status).toBe(201);
    const target = await w.webhook('/replayed');

    const started = await w.api('POST', '/v2/replays', { sourceId: w.source.id, destinationId: target, ...window });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'running', sourceId: w.source.id, destinationId: target, progress: { events: 0 } });
    const done = await settle(w, started.body.id);

    expect(w.received('/replayed').sort()).toEqual(['in-a-0', 'in-a-1', 'in-b-1']);
    expect(done).toMatchObject({ status: 'completed', progress: { parts, events: 5, delivered: 3, suppressed: 2, aborted: 0, retrying: 0 } });
    // Nothing more on later runs; the replay is listed.
    await rig.rt.scheduler.runNow();
    expect(w.received('/replayed')).toHaveLength(3);
    expect((await w.api('GET', '/v2/replays')).body.replays.map((r: { id: string }) => r.id)).toEqual([started.body.id]);
  });

  it('stops a cancelled replay after the part it was sending, and counts no part twice', async () => {
    const w = await workspace();
    const window = await storeAroundWindow(w, [events('c-a', ['u1']), events('c-b', ['u2']), events('c-c', ['u3'])]);
    const target = await w.webhook('/cancelled');
    const started = (await w.api('POST', '/v2/replays', { sourceId: w.source.id, destinationId: target, ...window })).body;
    // One run with no time to spare sends one part.
    await replayRunner(servicesOver(rig.rt.store)).runActive(1);
    expect(w.received('/cancelled')).toEqual(['c-a-0']);
    const cancelled = await w.api('POST', `/v2/replays/${started.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', progress: { parts: 1, events: 1, delivered: 1 } });
    await rig.rt.scheduler.runNow();
    expect(w.received('/cancelled')).toEqual(['c-a-0']);
    // Cancelling again changes nothing; a finished replay cannot be cancelled.
    expect((await w.api('POST', `/v2/replays/${started.id}/cancel`)).body.status).toBe('cancelled');
    const other = (await w.api('POST', '/v2/replays', { sourceId: w.source.id, destinationId: target, ...window })).body;
    await settle(w, other.id);
    const refused = await w.api('POST', `/v2/replays/${other.id}/cancel`);
    expect([refused.status, refused.body.error]).toEqual([409, expect.stringContaining('completed')]);
  });

  it("parks what the destination puts off, as live delivery does, and the scheduler's retry delivers it", async () => {
    const w = await workspace();
    const window = await storeAroundWindow(w, [events('p', ['u1', 'u2'])]);
    const target = await w.webhook('/flaky');
    let refusals = 1;
    rig.server.on('/flaky', (req, res) => (refusals-- > 0 ? json(503, {}) : json(200, {}))(req, res));
    const started = (await w.api('POST', '/v2/replays', { sourceId: w.source.id, destinationId: target, ...window })).body;
    const done = await settle(w, started.id);
    expect(done.progress).toMatchObject({ events: 2, delivered: 1, retrying: 1 });
    await sleep(50);
    await rig.rt.scheduler.runNow();
    expect(w.received('/flaky').sort()).toEqual(['p-0', 'p-0', 'p-1']);
    expect((await w.api('GET', `/v2/destinations/${target}/outcomes`)).body).toMatchObject({ delivered: 2, retrying: 0 });
  });

  it('refuses a window it cannot replay, naming what is wrong, and starts nothing', async () => {
    const w = await workspace();
    const target = await w.webhook('/refused');
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ sourceId: w.source.id, destinationId: target, from: at(-8 * 86_400_000), to: at(-1000) }, "from: before the archive's retention (7 days)"],
      [{ sourceId: w.source.id, destinationId: target, from: at(-1000), to: at(-2000) }, 'to: must be after from'],
      [{ sourceId: w.source.id, destinationId: target, from: at(-1000), to: at(3_600_000) }, 'to: must not be in the future'],
      [{ sourceId: w.source.id, destinationId: 'nope', from: at(-2000), to: at(-1000) }, 'destinationId: no destination nope'],
      [{ sourceId: 'nope', destinationId: target, from: at(-2000), to: at(-1000) }, 'sourceId: no source nope'],
      [{ sourceId: w.source.id, destinationId: target, from: 'yesterday', to: at(-1000) }, 'from: must be an ISO 8601 date-time'],
    ];
    for (const [body, message] of cases) {
      const answer = await w.api('POST', '/v2/replays', body);
      expect([answer.status, answer.body.error]).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await w.api('GET', '/v2/replays')).body.replays).toEqual([]);
    expect((await w.api('GET', '/v2/replays/01JZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  });
});
