import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SchemaCapture, type AcceptedRecord } from '../../shared/domain/event-schemas/capture-service';
import { groupByShard, partNumber } from '../../shared/domain/ingestion/shards';
import { STREAM_CONSUMERS } from '../../shared/contract/functions';
import { keys } from '../../shared/persistence/keys';
import { fileRuntime } from '../support/runtime';
import { schemaSource } from '../support/schema-source';
import { intercepting } from '../support/store-intercept';

/**
 * Schema capture of a sharded source's stream: many small parts (a request's events split by user), stream
 * batches of up to a thousand of them. What each batch costs the source's schema partition, a whole batch
 * handed over again, and consumers at once.
 */
const rt = fileRuntime();

async function setup() {
  const s = await schemaSource(rt);
  const { workspaceId, sourceId, writeKey, governance } = s;
  let requests = 0;
  /** `count` requests of 20 events from 20 users, each stored as one part per user shard of 64. */
  const parts = (count: number, event = 'Viewed'): AcceptedRecord[] =>
    Array.from({ length: count }).flatMap(() => {
      const request = ++requests;
      const events = Array.from({ length: 20 }, (_, i) => ({
        type: 'track',
        event,
        userId: `user-${(request * 20 + i) % 500}`,
        messageId: `m-${request}-${i}`,
        receivedAt: new Date(Date.UTC(2026, 10, 26, 12, 0, 0, request)).toISOString(),
        properties: { product: `p-${(request * 7 + i) % 300}`, price: (request * 3.7 + i) % 100, currency: 'EUR' },
      }));
      return [...groupByShard(events, 64)].map(([shard, own]) => ({
        recordId: `req-${request}#${partNumber(shard, 0)}`,
        workspaceId,
        sourceId,
        events: own,
      }));
    });
  const total = async (event = 'Viewed') => (await governance.eventModels(writeKey)).find((m) => m.EventIdentifier === event)?.TotalCount;
  return { ...s, parts, total, schemaPk: keys.schemaModel(workspaceId, sourceId, '', '').pk };
}

const events = (records: AcceptedRecord[]) => records.reduce((n, r) => n + r.events.length, 0);

/** The items put while `work` runs, as the table client sent them (the store's own client, which capture writes through). */
async function putsDuring(work: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const puts: Record<string, unknown>[] = [];
  const notePut = (command: string | undefined, input: Record<string, unknown>) => {
    if (/^Put(Item)?Command$/.test(String(command)) && input.Item) puts.push(input.Item as Record<string, unknown>);
  };
  await intercepting(notePut, work, rt.store);
  return puts;
}

const bytesOf = (item: Record<string, unknown>) =>
  Buffer.byteLength(JSON.stringify(item, (_, v: unknown) => (v instanceof Uint8Array ? 'x'.repeat(v.length) : v)));
const query = async (pk: string, prefix: string) =>
  (
    await rt.store.doc.send(
      new QueryCommand({
        TableName: rt.store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      }),
    )
  ).Items ?? [];

describe('schema capture of many small parts', () => {
  it('counts nothing twice when a whole stream batch of a thousand parts is handed over again', async () => {
    const s = await setup();
    const batch = s.parts(60).slice(0, STREAM_CONSUMERS.schemaCapture!.batchSize);
    expect(batch.length).toBeGreaterThan(800);
    const capture = new SchemaCapture(s.repository, s.catalog);
    expect((await capture.capture(batch)).size).toBe(0);
    expect((await new SchemaCapture(s.repository, s.catalog).capture(batch)).size).toBe(0);
    expect(await s.total()).toBe(events(batch));
  });

  it("writes a fold's base to the sketch's own partition: the source's schema partition takes small heads, a unit each", async () => {
    const s = await setup();
    const capture = new SchemaCapture(s.repository, s.catalog);
    const batches = Array.from({ length: 5 }, () => s.parts(12));
    const puts = await putsDuring(async () => {
      for (const batch of batches) expect((await capture.capture(batch)).size).toBe(0);
    });
    const inSchemaPartition = puts.filter((item) => item.pk === s.schemaPk);
    const bases = puts.filter((item) => /^(MODEL|VERSION)BASE/.test(String(item.sk)));
    // Each batch brings more events a sketch than a journal entry holds: every capture folds, model and version.
    expect(bases.length).toBeGreaterThanOrEqual(2 * batches.length);
    expect(Math.min(...bases.map(bytesOf))).toBeGreaterThan(1024);
    expect(bases.every((item) => String(item.pk).startsWith(`${s.schemaPk}#BASE#`))).toBe(true);
    expect(new Set(bases.map((item) => item.pk)).size).toBe(2);
    expect(inSchemaPartition.length).toBeGreaterThanOrEqual(2 * batches.length);
    expect(Math.max(...inSchemaPartition.map(bytesOf))).toBeLessThan(1024);
    expect(await query(s.schemaPk, 'MODELBASE')).toEqual([]);
    expect(await s.total()).toBe(batches.reduce((n, batch) => n + events(batch), 0));
  });

  it('loses no count when consumers capture batches of parts at once, and counts none twice handed over again', async () => {
    const s = await setup();
    const all = s.parts(40);
    const batches = Array.from({ length: 8 }, (_, i) => all.filter((_, k) => k % 8 === i));
    const consumers = Array.from({ length: 4 }, () => new SchemaCapture(s.repository, s.catalog));
    let pending = batches;
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const failed = await Promise.all(pending.map((batch, i) => consumers[i % consumers.length]!.capture(batch)));
      pending = pending.filter((_, i) => failed[i]!.size > 0);
    }
    expect(pending).toEqual([]);
    expect((await consumers[0]!.capture(batches[3]!)).size).toBe(0);
    expect(await s.total()).toBe(events(all));
  });
});
