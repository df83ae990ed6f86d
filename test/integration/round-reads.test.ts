import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { statsItem } from '../../shared/persistence/delivery-items';
import { SHARDS } from '../../shared/persistence/families';
import { keys } from '../../shared/persistence/keys';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { RegulationRepository } from '../../shared/persistence/regulation-repository';
import { SuppressionIndex } from '../../shared/domain/regulations/suppression-index';
import { deliveryHandler, streamRecordOf } from '../support/stream-records';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { basic, bearer, call } from '../support/runtime';
import { json } from '../support/destination-server';
import { eventShard } from '../../shared/domain/ingestion/shards';
import { getTableClient } from '../../shared/persistence/table-client';
import { countingStore } from '../support/store-reads';
import { STREAM_CONSUMERS } from '../../shared/contract/functions';
import { ingestItems } from '../support/ingest-items';

const delivery = deliveryHandler;
const recordOf = (item: Record<string, unknown>, n: number) => streamRecordOf(item, `round-${n}`, n);

/**
 * What a delivery round reads, and how often, with the changes it must see at once: whether anything is
 * parked at a destination (every round), the suppression index (every stream batch), and the source (once).
 */
const rig = deliveryRig();
const counting = () => countingStore(rig.rt.dynamoEndpoint, rig.rt.tableName);

it("reads a destination's counter shards every round, and nothing else, to tell whether anything is parked", async () => {
  const { store, reads, reset } = counting();
  const workspaceId = `ws-${randomUUID()}`;
  const destinationId = `d-${randomUUID()}`;
  const parked = new ParkedDeliveryRepository(store);
  const write = (retrying: number) =>
    rig.rt.store.doc.send(
      new TransactWriteCommand({ TransactItems: [statsItem(store.table, workspaceId, destinationId, { retrying }, [], new Date().toISOString())] }),
    );
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(false);
  // One parks (+1 in a shard), it ends (-1 in another): the sum tells.
  await write(1);
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(true);
  await write(-1);
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(false);
  expect(reads().filter((key) => key.pk === keys.workspacePartition(workspaceId))).toHaveLength(0);
  expect(reads()).toHaveLength(3 * SHARDS.counters);
  reset();
});

it("reads a recurring user's suppression once while the workspace's suppressions stay as they are; a create and a cancel apply to the next batch", async () => {
  const { store, reads, reset } = counting();
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, route: string, body?: unknown) => call(rig.rt.controlUrl, method, route, { auth: bearer(ws.token), body });
  const index = new SuppressionIndex(new RegulationRepository(store));
  const batch = async (users: string[]) => {
    reset();
    const inForce = await index.scopesOf(ws.workspaceId, users);
    const usersRead = reads()
      .filter((key) => key.sk?.startsWith('SUPPRESS#'))
      .map((key) => key.sk!.slice('SUPPRESS#'.length))
      .sort();
    return { suppressed: [...inForce.keys()].sort(), read: usersRead };
  };

  expect(await batch(['ann', 'bob'])).toEqual({ suppressed: [], read: ['ann', 'bob'] });
  // The next batch reads only the user it has not seen (and the stamp).
  expect(await batch(['ann', 'bob', 'cid'])).toEqual({ suppressed: [], read: ['cid'] });
  expect(reads().filter((key) => key.pk === keys.suppressionStamp(ws.workspaceId).pk)).toHaveLength(1);

  // A regulation created: the next batch sees it, reading the users again.
  const created = await api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'ann' }] });
  expect(created.status).toBe(201);
  expect(await batch(['ann', 'bob'])).toEqual({ suppressed: ['ann'], read: ['ann', 'bob'] });
  expect(await batch(['ann', 'bob'])).toEqual({ suppressed: ['ann'], read: [] });

  // Canceled: the next batch lets Ann through.
  const id = (await api('GET', '/v2/regulations?userId=ann')).body.data[0].id as string;
  expect((await api('DELETE', `/v2/regulations/${id}`)).status).toBe(200);
  expect(await batch(['ann', 'bob'])).toEqual({ suppressed: [], read: ['ann', 'bob'] });
});

it('delivers a stream batch of up to 50 parts as one round: one read of whether anything is parked at the destination, one of the source', async () => {
  rig.server.on('/round', json(200, {}));
  const { ws, source, connect } = await sourcePipeline(rig, { name: 'server', ingestShards: 64 });
  const hook = { id: await connect(webhookAt(rig, '/round', 'hook')) };
  // One request of 60 users: stored as one part per ingest shard that holds any of them, about 40.
  const batch = Array.from({ length: 60 }, (_, i) => ({ type: 'track', userId: `user-${i}`, event: 'e', messageId: `round-${i}` }));
  const stored = new Set(batch.map((event) => eventShard(event, 64))).size;
  expect(stored).toBeGreaterThan(25);
  expect(stored).toBeLessThanOrEqual(50);

  const rounds = { parked: 0, source: 0 };
  getTableClient().doc.middlewareStack.add(
    (next) => async (args) => {
      // BatchGet's keys (a BatchWrite's RequestItems hold no Keys).
      const input = args.input as { RequestItems?: Record<string, { Keys?: { sk: string }[] }>; Key?: { sk: string } };
      const keysRead = Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []);
      if (keysRead.some((key) => key.sk === `DESTSTATS#${hook.id}`)) rounds.parked++;
      if ([...keysRead, input.Key].some((key) => key?.sk === `SOURCE#${source.id}`)) rounds.source++;
      return next(args);
    },
    { step: 'initialize', name: 'countRounds' },
  );
  // The stream's records are handed over as one batch of the consumer's size (the local stream may hand a
  // request's items, written side by side, over in more than one).
  await rig.rt.poller.stop();
  expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
  const items = (await ingestItems(rig.rt.store, ws.workspaceId, source.id)).filter((item) => item.entity === 'ingest');
  expect(items).toHaveLength(stored);
  expect(stored).toBeLessThanOrEqual(STREAM_CONSUMERS.delivery!.batchSize);
  rounds.source = 0;
  try {
    expect(await delivery()({ Records: items.map((item, n) => recordOf(item, n)) })).toEqual({ batchItemFailures: [] });
  } finally {
    getTableClient().doc.middlewareStack.remove('countRounds');
  }
  expect(rig.server.received.filter((r) => r.path === '/round')).toHaveLength(60);
  expect(rounds.parked).toBe(1);
  // The source (its shard change, its de-duplication window): one read for the consumers that ask.
  expect(rounds.source).toBe(1);
});
