import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SchemaCapture, type AcceptedRecord } from '../../shared/domain/event-schemas/capture-service';
import { keys } from '../../shared/persistence/keys';
import { fileRuntime } from '../support/runtime';
import { schemaSource } from '../support/schema-source';

/**
 * Schema capture against DynamoDB Local, fed stream batches directly: replays, concurrent consumers, the
 * bounds and their eviction, the summary following its sketch.
 */
const rt = fileRuntime();

async function setup(limits?: { modelsPerSource: number; versionsPerModel: number }) {
  const s = await schemaSource(rt, limits);
  let sequence = 0;
  return {
    ...s,
    newCapture: () => new SchemaCapture(s.repository, s.catalog),
    record: (events: Record<string, unknown>[]): AcceptedRecord => ({
      recordId: `req-${++sequence}#0`,
      workspaceId: s.workspaceId,
      sourceId: s.sourceId,
      events,
    }),
  };
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, second)).toISOString();
const track = (event: string, second: number, properties: Record<string, unknown> = {}) => ({
  type: 'track',
  event,
  userId: 'u1',
  messageId: `${event}-${second}-${Math.random()}`,
  receivedAt: at(second),
  properties,
});

describe('schema capture', () => {
  it('counts nothing twice when a stream record is handed over again', async () => {
    const s = await setup();
    const capture = s.newCapture();
    const first = s.record([track('Signed Up', 1), track('Signed Up', 2, { plan: 'pro' })]);
    const second = s.record([track('Signed Up', 3)]);
    expect((await capture.capture([first])).size).toBe(0);
    expect((await capture.capture([first, second])).size).toBe(0);
    expect((await s.newCapture().capture([second, first])).size).toBe(0);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect([model!.TotalCount, model!.LastSeen]).toEqual([3, at(3)]);
    const versions = await s.governance.eventVersions(model!.EventID);
    expect(versions.map((v) => [v.TotalCount, v.FirstSeen, v.LastSeen])).toEqual([
      [2, at(1), at(3)],
      [1, at(2), at(2)],
    ]);
    expect((await s.governance.keyCounts(model!.EventID))['properties.plan']).toBe(1);
  });

  it('loses no count when consumers write the same model at once', async () => {
    const s = await setup();
    const records = Array.from({ length: 24 }, (_, i) => s.record([track('Clicked', i % 60, { i }), track('Clicked', i % 60, { i, n: i })]));
    const consumers = [s.newCapture(), s.newCapture(), s.newCapture(), s.newCapture()];
    // As Lambda does: what a consumer reports failed is handed over again, until nothing fails.
    let pending = records;
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const failed = await Promise.all(pending.map((record, i) => consumers[i % consumers.length]!.capture([record])));
      pending = pending.filter((_, i) => failed[i]!.size > 0);
    }
    expect(pending).toEqual([]);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect(model!.TotalCount).toBe(48);
    expect((await s.governance.eventVersions(model!.EventID)).map((v) => v.TotalCount)).toEqual([24, 24]);
    const counts = await s.governance.keyCounts(model!.EventID);
    expect([counts['properties.i'], counts['properties.n']]).toEqual([48, 24]);
    expect((await s.governance.modelMetadata(model!.EventID)).TotalCount).toBe(48);
    // 48 events written by four consumers racing on one model: about 25 s alone on a 2-core machine.
  }, 120_000);

  it("evicts a write key's least recently seen model, with its versions, at the limit", async () => {
    const s = await setup({ modelsPerSource: 3, versionsPerModel: 20 });
    const capture = s.newCapture();
    for (const [name, second] of [
      ['A', 5],
      ['B', 1],
      ['C', 3],
    ] as const)
      await capture.capture([s.record([track(name, second)])]);
    const before = await s.governance.eventModels(s.writeKey);
    const evicted = before.find((m) => m.EventIdentifier === 'B')!;
    const [evictedVersion] = await s.governance.eventVersions(evicted.EventID);
    await capture.capture([s.record([track('D', 6)])]);
    const after = await s.governance.eventModels(s.writeKey);
    expect(after.map((m) => m.EventIdentifier)).toEqual(['A', 'C', 'D']);
    await expect(s.governance.modelMetadata(evicted.EventID)).rejects.toThrow(`No event model found for EventID: ${evicted.EventID}`);
    await expect(s.governance.versionMetadata(evictedVersion!.VersionID)).rejects.toThrow('No event version found');
    expect((await s.governance.eventModels()).map((m) => m.EventID)).not.toContain(evicted.EventID);
  });

  it("evicts a model's least recently seen version at the limit, keeping the model's counts", async () => {
    const s = await setup({ modelsPerSource: 200, versionsPerModel: 2 });
    const capture = s.newCapture();
    await capture.capture([s.record([track('Paid', 1, { a: 1 })])]);
    await capture.capture([s.record([track('Paid', 2, { b: 1 })])]);
    await capture.capture([s.record([track('Paid', 3, { a: 2 })])]);
    await capture.capture([s.record([track('Paid', 4, { c: 1 })])]);
    const [model] = await s.governance.eventModels(s.writeKey);
    const versions = await s.governance.eventVersions(model!.EventID);
    expect(versions.map((v) => [Object.keys(v.Schema).filter((k) => k.startsWith('properties.')), v.TotalCount])).toEqual([
      [['properties.a'], 2],
      [['properties.c'], 1],
    ]);
    expect(model!.TotalCount).toBe(4);
    expect(Object.keys(model!.Schema).filter((k) => k.startsWith('properties.'))).toEqual(['properties.a', 'properties.b', 'properties.c']);
    expect(await s.governance.missingKeys(versions[1]!.VersionID)).toEqual(['properties.a', 'properties.b']);
  });

  it("brings back a model's schema whose summary write was lost, from its sketch, and lists counts from the sketch", async () => {
    const s = await setup();
    const record = s.record([track('Upgraded', 1), track('Upgraded', 2, { plan: 'pro' })]);
    await s.newCapture().capture([record]);
    // The summary is written only when the schema grows: as if that write had been lost.
    await rt.store.doc.send(
      new UpdateCommand({
        TableName: rt.store.table,
        Key: keys.schemaModel(s.workspaceId, s.sourceId, 'track', 'Upgraded'),
        UpdateExpression: 'SET #schema = :empty, #rev = :zero',
        ExpressionAttributeNames: { '#schema': 'schema', '#rev': 'rev' },
        ExpressionAttributeValues: { ':empty': '{}', ':zero': 0 },
      }),
    );
    const [lost] = await s.governance.eventModels(s.writeKey);
    expect([lost!.TotalCount, lost!.Schema]).toEqual([2, {}]);
    await s.newCapture().capture([record]); // handed over again: nothing new to count
    const [repaired] = await s.governance.eventModels(s.writeKey);
    expect([repaired!.TotalCount, repaired!.Schema['properties.plan']]).toEqual([2, 'string']);
  });

  it('leaves out events it cannot key or that have too many keys', async () => {
    const s = await setup();
    const wide = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`k${i}`, i]));
    await s
      .newCapture()
      .capture([
        s.record([
          { type: 'track', userId: 'u1', event: 42 },
          { type: 'track', userId: 'u1', event: 'x'.repeat(201) },
          track('Wide', 1, wide),
          { type: 'page', userId: 'u1', name: 'Home' },
        ]),
      ]);
    const models = await s.governance.eventModels(s.writeKey);
    expect(models.map((m) => [m.EventType, m.EventIdentifier, m.TotalCount])).toEqual([['page', '', 1]]);
  });

  it('captures events with odd keys: empty, "__proto__", dotted', async () => {
    const s = await setup();
    const odd = JSON.parse('{"type":"page","userId":"u1","":"blank","__proto__":"p","properties":{"":1,"a.b":true,"constructor":"c"}}');
    expect((await s.newCapture().capture([s.record([odd])])).size).toBe(0);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect(model!.Schema).toEqual(
      JSON.parse('{"__proto__":"string","properties.":"float64","properties.a.b":"bool","properties.constructor":"string","type":"string","userId":"string"}'),
    );
    expect(Object.keys(await s.governance.keyCounts(model!.EventID))).toContain('__proto__');
  });

  it('stores a model whatever keys its events bring: a thousand long random ones', async () => {
    const s = await setup();
    const name = () => randomBytes(190).toString('base64').slice(0, 240); // properties.<name>: 251 characters
    const events = Array.from({ length: 40 }, () =>
      track('Hostile', 1, {
        ...Object.fromEntries(Array.from({ length: 30 }, () => [name(), randomBytes(100).toString('hex')])),
        ...Object.fromEntries(Array.from({ length: 30 }, () => [name(), null])),
      }),
    );
    const failed = await s.newCapture().capture(events.map((event) => s.record([event])));
    expect(failed.size).toBe(0);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect([model!.TotalCount, Object.keys(model!.Schema).length]).toEqual([40, 1000]);
    expect((await s.governance.modelMetadata(model!.EventID)).TotalCount).toBe(40);
    // A thousand keys of 251 characters: about 22 s alone on a 2-core machine.
  }, 120_000);

  it('keeps nothing for a source that no longer exists', async () => {
    const s = await setup();
    const gone = { ...s.record([track('Ghost', 1)]), sourceId: 'no-such-source' };
    expect((await s.newCapture().capture([gone])).size).toBe(0);
    expect(await s.repository.modelsOfSource(s.workspaceId, 'no-such-source')).toEqual([]);
  });
});
