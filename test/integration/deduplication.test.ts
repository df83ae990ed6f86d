import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/persistence/keys';
import { amplitudeAt, amplitudeRequestsAt, deliveryRig, flowThrough, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json, messageIdsAt } from '../support/destination-server';
import { startDroppingProxy, type DroppingProxy } from '../support/dropping-proxy';
import { ingestItems } from '../support/ingest-items';
import { handOver } from '../support/stream-records';
import { intercepting } from '../support/store-intercept';
import { ADMIN, basic, call } from '../support/runtime';

/**
 * At most once per (source, messageId) within the source's window (docs/concepts/deduplication.md): a flush
 * whose answer was lost and that the client sends again, a batch re-chunked with events added, a messageId
 * repeated inside one request; never across sources, and again after the window. Duplicates are counted in the
 * source's funnel and in each destination's, and sent to none.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();
let proxy: DroppingProxy;

beforeAll(async () => {
  proxy = await startDroppingProxy(rig.rt.dataUrl);
});
afterAll(() => proxy.close());

async function pipeline() {
  rig.server.on('/hook', json(200, {}));
  rig.server.on('/amp/2/httpapi', json(200, { code: 200 }));
  const { ws, api, source } = await sourcePipeline(rig);
  const newSource = async (name: string) => (await api('POST', '/v2/sources', { name })).body.source as { id: string; writeKey: string };
  const hook = (await api('POST', '/v2/destinations', webhookAt(rig, '/hook', 'hook'))).body.destination;
  const amplitude = (await api('POST', '/v2/destinations', amplitudeAt(rig, '/amp', 'amp', 'k'))).body.destination;
  for (const d of [hook, amplitude]) expect((await api('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id })).status).toBe(201);
  /** Sends a batch through the proxy as an SDK does: again after a lost answer, up to three times. */
  const flush = async (batch: Record<string, unknown>[], writeKey = source.writeKey) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await fetch(`${proxy.url}/v1/batch`, {
          method: 'POST',
          headers: { Authorization: basic(writeKey, ''), 'Content-Type': 'application/json' },
          body: JSON.stringify({ batch }),
        });
        expect(answer.status).toBe(200);
        return attempt;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  };
  const atHook = () => messageIdsAt(rig.server, '/hook');
  const atAmplitude = () => amplitudeRequestsAt(rig, '/amp').flatMap((events) => events.map((e) => e.insert_id));
  const from = new Date(Date.now() - 3600_000).toISOString();
  const funnel = async (kind: 'sources' | 'destinations', id: string) => (await api('GET', `/v2/${kind}/${id}/delivery?from=${from}`)).body;
  return { ws, api, source, hook, amplitude, newSource, flush, atHook, atAmplitude, funnel };
}

const track = (tag: string, n: number, user = `${tag}-user`) =>
  Array.from({ length: n }, (_, i) => ({ type: 'track', event: 'Order Completed', userId: user, messageId: `${tag}-${i}` }));
const sorted = (list: string[]) => [...list].sort();

describe('de-duplication by messageId', () => {
  it('a single-user flush sent again after its answer was lost reaches each destination once, and the funnels count the duplicates', async () => {
    const p = await pipeline();
    const batch = track('lost', 5);
    proxy.dropNext();
    expect(await p.flush(batch)).toBe(2);
    // Both attempts were acknowledged by Weir: the first answer never reached the client.
    expect(proxy.answered.slice(-2).map((a) => a.status)).toEqual([200, 200]);
    await flowThrough(rig);
    const ids = batch.map((e) => e.messageId);
    expect(sorted(p.atHook())).toEqual(sorted(ids));
    expect(sorted(p.atAmplitude())).toEqual(sorted(ids));
    const source = await p.funnel('sources', p.source.id);
    expect(source).toMatchObject({ stored: 10, duplicate: 5 });
    for (const d of [p.hook, p.amplitude]) expect(await p.funnel('destinations', d.id)).toMatchObject({ routed: 10, delivered: 5, duplicate: 5 });
    // The source's live events show both copies, the second marked with when its messageId was first seen.
    const live = (await p.api('GET', `/v2/sources/${p.source.id}/live-events`)).body.events as { messageId: string; duplicate?: { firstSeenAt: string } }[];
    expect(live).toHaveLength(10);
    const marked = live.filter((e) => e.duplicate);
    expect(sorted(marked.map((e) => e.messageId))).toEqual(sorted(ids));
    for (const e of marked) expect(Date.parse(e.duplicate!.firstSeenAt)).toBeLessThanOrEqual(Date.now());
    // The audit: every stored copy is accounted for at each destination, the first delivered, the second a duplicate.
    const admin = basic(ADMIN.user, ADMIN.password);
    const audit = (await call(rig.rt.dataUrl, 'GET', `/admin/audit?sourceId=${p.source.id}`, { auth: admin })).body;
    expect(audit).toMatchObject({ events: 10, missing: 0 });
    for (const d of audit.destinations) expect(d).toMatchObject({ states: { delivered: 5, duplicate: 5, missing: 0 }, countersExact: true });
    // Schema capture counted each event once.
    const models = (
      await call(rig.rt.dataUrl, 'GET', `/schemas/event-models?WriteKey=${encodeURIComponent(p.source.writeKey)}`, {
        auth: basic(ADMIN.user, ADMIN.password),
      })
    ).body as {
      TotalCount: number;
    }[];
    expect(models.reduce((n, m) => n + m.TotalCount, 0)).toBe(5);
  });

  it('a batch sent again with two events added delivers only the two new ones', async () => {
    const p = await pipeline();
    await p.flush(track('grow', 4));
    await flowThrough(rig);
    await p.flush(track('grow', 6));
    await flowThrough(rig);
    expect(sorted(p.atHook())).toEqual(sorted(track('grow', 6).map((e) => e.messageId)));
    expect(sorted(p.atAmplitude())).toEqual(sorted(track('grow', 6).map((e) => e.messageId)));
  });

  it('a messageId repeated inside one request goes once', async () => {
    const p = await pipeline();
    const [first] = track('twice', 1);
    await p.flush([first!, { ...first!, properties: { again: true } }]);
    await flowThrough(rig);
    expect(p.atHook()).toEqual([first!.messageId]);
    expect(await p.funnel('sources', p.source.id)).toMatchObject({ stored: 2, duplicate: 1 });
  });

  it('the window is per source: the same messageId in two sources reaches the destination from both', async () => {
    const p = await pipeline();
    const other = await p.newSource('server');
    expect((await p.api('POST', '/v2/connections', { sourceId: other.id, destinationId: p.hook.id })).status).toBe(201);
    await p.flush(track('shared', 2));
    await p.flush(track('shared', 2), other.writeKey);
    await flowThrough(rig);
    expect(sorted(p.atHook())).toEqual(sorted([...track('shared', 2), ...track('shared', 2)].map((e) => e.messageId)));
  });

  it('an event whose messageId was first seen longer ago than the window is delivered again', async () => {
    const p = await pipeline();
    await p.flush(track('late', 1));
    await flowThrough(rig);
    // The first claim's window ended a second ago (as it does 24 hours after the event came).
    await rig.rt.store.doc.send(
      new UpdateCommand({
        TableName: rig.rt.store.table,
        Key: keys.seenMessage(p.ws.workspaceId, p.source.id, 'late-0'),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    await p.flush(track('late', 1));
    await flowThrough(rig);
    expect(p.atHook()).toEqual(['late-0', 'late-0']);
    expect(await p.funnel('sources', p.source.id)).toMatchObject({ stored: 2, duplicate: 0 });
  });

  it('a part whose delivery failed after its claims were written is handed over again and delivered, not taken for its own duplicate', async () => {
    const p = await pipeline();
    // The first write after the claims (the source funnel's transaction) fails once: the stream hands the part over again.
    let failed = false;
    const failOnce = (command: string | undefined) => {
      if (command !== 'TransactWriteItemsCommand' || failed) return;
      failed = true;
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    };
    await intercepting(failOnce, async () => {
      await p.flush(track('crash', 3));
      await flowThrough(rig);
      await flowThrough(rig);
    });
    expect(failed).toBe(true);
    expect(sorted(p.atHook())).toEqual(['crash-0', 'crash-1', 'crash-2']);
    expect(await p.funnel('sources', p.source.id)).toMatchObject({ stored: 3, duplicate: 0 });
  });

  it('reads no batch at the destinations for a part first claimed now, and reads a part handed over again, which goes once', async () => {
    const p = await pipeline();
    // Each read of the destinations' batch items (where the consumer looks up how far a part got).
    let reads = 0;
    const countBatchReads = (command: string | undefined, input: Record<string, unknown>) => {
      if (command === 'BatchGetItemCommand' && JSON.stringify(input).includes('#DELIVERY#')) reads++;
    };
    await intercepting(countBatchReads, async () => {
      await p.flush(track('first', 3));
      await flowThrough(rig);
      expect(reads).toBe(0);
      // The same stored part handed over again (a stream record redelivered): read, found done, sent nowhere again.
      const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
      expect(await handOver(items, 'again')).toEqual({ batchItemFailures: [] });
      await flowThrough(rig);
      expect(reads).toBeGreaterThan(0);
    });
    expect(sorted(p.atHook())).toEqual(['first-0', 'first-1', 'first-2']);
    expect(sorted(p.atAmplitude())).toEqual(['first-0', 'first-1', 'first-2']);
    expect(await p.funnel('sources', p.source.id)).toMatchObject({ stored: 3, duplicate: 0 });
  });

  it('a source sets its window from 1 hour to 7 days; anything else is refused naming the field, and nothing changes', async () => {
    const p = await pipeline();
    expect((await p.api('PATCH', `/v2/sources/${p.source.id}`, { deduplicationWindowHours: 168 })).body.source.deduplicationWindowHours).toBe(168);
    for (const bad of [0, 169, 1.5, '24']) {
      const answer = await p.api('PATCH', `/v2/sources/${p.source.id}`, { deduplicationWindowHours: bad });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('deduplicationWindowHours');
    }
    expect((await p.api('GET', `/v2/sources/${p.source.id}`)).body.source.deduplicationWindowHours).toBe(168);
  });
});
