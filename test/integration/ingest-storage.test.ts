import { brotliDecompressSync, gzipSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { weirIdOf } from '../../shared/domain/ingestion/events';
import { IngestRepository, ingestPartOf } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { basic, bearer, call, fileRuntime } from '../support/runtime';
import { ingestItems } from '../support/ingest-items';

/**
 * How a request's events are stored: Brotli-compressed JSON, each event without the `weirId` its ids derive,
 * which reading derives again; an item stored gzipped with its weirIds (the form before) reads as it did.
 */
const rt = fileRuntime();

async function source() {
  const ws = await rt.newWorkspace();
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'app', ingestShards: 1 } });
  const { id, writeKey } = created.body.source as { id: string; writeKey: string };
  return { ws, id, auth: basic(writeKey, '') };
}

const batch = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'track',
    userId: `user-${i}`,
    anonymousId: `anon-${i}`,
    event: 'Product Viewed',
    messageId: `stored-${i}`,
    properties: { product_id: `p-${i}`, price: i * 3.5, currency: 'EUR' },
    context: { library: { name: 'analytics-node', version: '3.0.0' }, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
  }));

it("stores a request's events Brotli-compressed without their derived weirIds, and reads them back whole", async () => {
  const s = await source();
  const answer = await call(rt.dataUrl, 'POST', '/v1/batch', { auth: s.auth, body: { batch: batch(20) } });
  expect(answer.status).toBe(200);
  const [item, ...others] = (await ingestItems(rt.store, s.ws.workspaceId, s.id)).filter((i) => i.entity === 'ingest');
  expect(others).toEqual([]);
  const payload = item!.payload as Uint8Array;
  expect([payload[0], payload[1]]).not.toEqual([0x1f, 0x8b]); // not gzip
  const stored = JSON.parse(brotliDecompressSync(payload).toString('utf8')) as Record<string, unknown>[];
  expect(stored).toHaveLength(20);
  expect(stored.filter((e) => 'weirId' in e)).toEqual([]);

  const read = ingestPartOf(item!).events;
  expect(read.map((e) => e.weirId)).toEqual(read.map((e) => weirIdOf(e)));
  expect(read.map((e) => e.messageId)).toEqual(batch(20).map((e) => e.messageId));
  // Smaller than the same events gzipped, weirIds and all (the form before).
  expect(payload.length).toBeLessThan(gzipSync(JSON.stringify(read)).length * 0.8);
});

it('keeps a weirId that is not the derived one, and reads an item stored gzipped as before', async () => {
  const s = await source();
  const repository = new IngestRepository(rt.store);
  const own = { type: 'track', userId: 'u', event: 'e', messageId: 'own', receivedAt: new Date().toISOString(), weirId: 'not-derived' };
  await repository.write({ workspaceId: s.ws.workspaceId, sourceId: s.id, requestId: '01JAAAAAAAAAAAAAAAAAAAAAAA', receivedAt: own.receivedAt, events: [own] });
  const [item] = (await ingestItems(rt.store, s.ws.workspaceId, s.id)).filter((i) => i.entity === 'ingest');
  expect(ingestPartOf(item!).events).toEqual([own]);

  const before = { ...own, messageId: 'gzipped', weirId: weirIdOf(own) };
  const key = keys.ingest(s.ws.workspaceId, s.id, '01JBBBBBBBBBBBBBBBBBBBBBBB', 0);
  const old = {
    ...key,
    entity: 'ingest',
    workspaceId: s.ws.workspaceId,
    sourceId: s.id,
    requestId: '01JBBBBBBBBBBBBBBBBBBBBBBB',
    part: 0,
    receivedAt: own.receivedAt,
    payload: gzipSync(JSON.stringify([before])),
  };
  await rt.store.doc.send(new PutCommand({ TableName: rt.store.table, Item: old }));
  const found = (await ingestItems(rt.store, s.ws.workspaceId, s.id)).find((i) => i.requestId === old.requestId);
  expect(ingestPartOf(found!).events).toEqual([before]);
});
