import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SchemaCapture, type AcceptedRecord } from '../../shared/domain/event-schemas/capture-service';
import { flatten, versionOf } from '../../shared/domain/event-schemas/flatten';
import { forgetUser } from '../../shared/domain/event-schemas/forget-user';
import { SchemaGovernance } from '../../shared/domain/event-schemas/governance-service';
import { Sketch } from '../../shared/domain/event-schemas/sketch';
import { OpenSketch } from '../../shared/domain/event-schemas/sketch-layout';
import { uuidv7 } from '../../shared/domain/ids';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { EventSchemaRepository } from '../../shared/persistence/event-schema-repository';
import { keys } from '../../shared/persistence/keys';
import { bearer, call, startTestRuntime, type TestRuntime } from '../support/runtime';

/**
 * How capture stores sketches (a head with a journal, two base slots) against DynamoDB Local: items of the
 * first format still read and carry on, counts stay exact whichever way a capture is written, and a
 * forgotten user leaves journals and bases alike.
 */
let rt: TestRuntime;
beforeAll(async () => (rt = await startTestRuntime()));
afterAll(async () => rt.stop());

async function setup() {
  const ws = await rt.newWorkspace();
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'app' } });
  const { id: sourceId, writeKey } = created.body.source as { id: string; writeKey: string };
  const repository = new EventSchemaRepository(rt.store);
  const catalog = new CatalogRepository(rt.store);
  const record = (id: string, events: Record<string, unknown>[]): AcceptedRecord => ({ recordId: id, workspaceId: ws.workspaceId, sourceId, events });
  return { workspaceId: ws.workspaceId, sourceId, writeKey, repository, catalog, record, governance: new SchemaGovernance(repository, catalog) };
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 9, 0, second % 60, Math.floor(second / 60))).toISOString();
const paid = (n: number, properties: Record<string, unknown>, userId = `u${n % 13}`) => ({
  type: 'track',
  event: 'Paid',
  userId,
  messageId: `m-${n}`,
  receivedAt: at(n),
  properties,
});

/** A sketch as the first format stored it: gzipped JSON of the whole state, records as base64url digests. */
function firstFormat(events: Record<string, unknown>[], recordIds: string[]): Buffer {
  const sketch = new Sketch();
  for (const event of events) sketch.observe(event, flatten(event), String(event.receivedAt));
  const keyList = [...sketch.schema].map(([key, types]) => [key, types, sketch.keyCounts.get(key)]);
  const index = new Map(keyList.map(([key], i) => [key, i]));
  return gzipSync(
    JSON.stringify({
      total: sketch.total,
      firstSeen: sketch.firstSeen,
      lastSeen: sketch.lastSeen,
      keys: keyList,
      topLevel: [...sketch.topLevel],
      arrays: [...sketch.arrays],
      nullable: [...sketch.nullable],
      values: [...sketch.values].map(([key, counter]) => [index.get(key), counter.toState()]),
      samples: sketch.samples,
      applied: recordIds.map((id) => createHash('sha256').update(id).digest('base64url').slice(0, 10)),
    }),
  );
}

describe('sketch storage', () => {
  it('reads a model and version stored in the first format, and carries their counts on', async () => {
    const s = await setup();
    const put = (Item: Record<string, unknown>) => rt.store.doc.send(new PutCommand({ TableName: rt.store.table, Item }));
    const old = [paid(1, { plan: 'pro' }), paid(2, { plan: 'free' })];
    const { schema, hash } = versionOf(flatten(old[0]!));
    const [eventId, versionId] = [uuidv7(), uuidv7()];
    const ref = { workspaceId: s.workspaceId, sourceId: s.sourceId, eventType: 'track', eventIdentifier: 'Paid' };
    const counts = { total: 2, lastSeen: at(2), rev: 1 };
    await put({
      ...keys.schemaModel(s.workspaceId, s.sourceId, 'track', 'Paid'),
      entity: 'schemaModel',
      ...ref,
      id: 1,
      eventId,
      writeKey: s.writeKey,
      createdAt: at(1),
      schema: JSON.stringify(schema),
      ...counts,
    });
    await put({
      ...keys.schemaModelSketch(s.workspaceId, s.sourceId, 'track', 'Paid'),
      entity: 'schemaModelSketch',
      rev: 1,
      data: firstFormat(old, ['req-old#0']),
    });
    await put({ ...keys.schemaModelLookup(eventId), entity: 'schemaModelLookup', ...ref, gsi1pk: keys.schemaModels, gsi1sk: '000000000001' });
    const version = { workspaceId: s.workspaceId, sourceId: s.sourceId, eventId, hash };
    await put({
      ...keys.schemaVersion(s.workspaceId, s.sourceId, eventId, hash),
      entity: 'schemaVersion',
      ...version,
      id: 1,
      versionId,
      schema: JSON.stringify(schema),
      firstSeen: at(1),
      ...counts,
    });
    await put({
      ...keys.schemaVersionSketch(s.workspaceId, s.sourceId, eventId, hash),
      entity: 'schemaVersionSketch',
      rev: 1,
      data: firstFormat(old, ['req-old#0']),
    });
    await put({ ...keys.schemaVersionLookup(versionId), entity: 'schemaVersionLookup', ...version });

    const listed = async () => {
      const [model] = await s.governance.eventModels(s.writeKey);
      const versions = await s.governance.eventVersions(eventId);
      return [model!.TotalCount, versions.map((v) => v.TotalCount), (await s.governance.modelMetadata(eventId)).TotalCount];
    };
    expect(await listed()).toEqual([2, [2], 2]);
    expect((await s.governance.modelMetadata(eventId)).FrequentValues['properties.plan']).toEqual([
      { Value: 'free', Frequency: 0.5 },
      { Value: 'pro', Frequency: 0.5 },
    ]);
    expect((await s.governance.versionMetadata(versionId)).SampledEvents).toEqual(old);

    const capture = new SchemaCapture(s.repository, s.catalog);
    // The record the first format already holds counts nothing again; a new one counts on from its counts.
    expect((await capture.capture([s.record('req-old#0', old)])).size).toBe(0);
    expect(await listed()).toEqual([2, [2], 2]);
    expect((await capture.capture([s.record('req-new#0', [paid(3, { plan: 'pro' })])])).size).toBe(0);
    expect(await listed()).toEqual([3, [3], 3]);
    expect((await s.governance.keyCounts(eventId))['properties.plan']).toBe(3);
    const head = await rt.store.doc.send(
      new GetCommand({ TableName: rt.store.table, Key: keys.schemaModelSketch(s.workspaceId, s.sourceId, 'track', 'Paid') }),
    );
    expect([head.Item?.data, head.Item?.body instanceof Uint8Array, head.Item?.total]).toEqual([undefined, true, 3]);
  });

  it('counts exactly across journaled and folded captures, records handed over again and two consumers at once', async () => {
    const s = await setup();
    const [a, b] = [new SchemaCapture(s.repository, s.catalog), new SchemaCapture(s.repository, s.catalog)];
    // Record sizes around the journal's bounds (LAYOUT): a few events are journaled, many fold at once.
    const sizes = [1, 2, 70, 3, 150, 1, 5, 90, 2, 1, 120, 4];
    let n = 0;
    const records = sizes.map((size, r) =>
      s.record(
        `req-${r}#0`,
        Array.from({ length: size }, () => {
          n++;
          return paid(n, { plan: ['free', 'pro'][n % 2], amount: n % 97, ...(n % 3 === 0 && { coupon: `c${n % 5}` }) });
        }),
      ),
    );
    for (let i = 0; i < records.length; i += 2) {
      const pair = records.slice(i, i + 2);
      const replayed = records.slice(Math.max(0, i - 3), i);
      const failed = await Promise.all([a.capture([...replayed, pair[0]!]), b.capture([pair[1]!, ...replayed.slice(-1)])]);
      expect(failed.map((f) => f.size)).toEqual([0, 0]);
    }
    const events = records.flatMap((r) => r.events);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect(model!.TotalCount).toBe(events.length);
    const withCoupon = events.filter((e) => 'coupon' in (e.properties as object)).length;
    const versions = await s.governance.eventVersions(model!.EventID);
    expect(versions.map((v) => v.TotalCount).sort((x, y) => x - y)).toEqual([withCoupon, events.length - withCoupon].sort((x, y) => x - y));
    const counts = await s.governance.keyCounts(model!.EventID);
    expect([counts['properties.plan'], counts['properties.coupon'], counts.userId]).toEqual([events.length, withCoupon, events.length]);
    const frequent = (await s.governance.modelMetadata(model!.EventID)).FrequentValues;
    expect(frequent['properties.plan']).toEqual(
      [
        { Value: 'free', Frequency: events.filter((e) => (e.properties as { plan: string }).plan === 'free').length / events.length },
        { Value: 'pro', Frequency: events.filter((e) => (e.properties as { plan: string }).plan === 'pro').length / events.length },
      ].sort((x, y) => y.Frequency - x.Frequency || (x.Value < y.Value ? -1 : 1)),
    );
  });

  it("writes a model's grown schema before the counts that come with it", async () => {
    const s = await setup();
    const save = s.repository.saveModelSketch;
    const schemaAtCount: string[][] = [];
    s.repository.saveModelSketch = async (ref, rev, write) => {
      schemaAtCount.push(Object.keys((await s.repository.loadModel(ref)).summary!.schema).filter((key) => key.startsWith('properties.')));
      return save(ref, rev, write);
    };
    const capture = new SchemaCapture(s.repository, s.catalog);
    await capture.capture([s.record('req-1#0', [paid(1, { plan: 'pro' })])]);
    await capture.capture([s.record('req-2#0', [paid(2, { plan: 'pro', seats: 3 })])]);
    expect(schemaAtCount).toEqual([['properties.plan'], ['properties.plan', 'properties.seats']]);
  });

  it('forgets a user in journals and bases alike, and deletes the base the sketch no longer reads', async () => {
    const s = await setup();
    const capture = new SchemaCapture(s.repository, s.catalog);
    // Folded into a base (many events), then journaled (a few): the user is in both.
    const many = Array.from({ length: 80 }, (_, i) =>
      paid(i, { plan: 'pro', email: i % 2 ? 'gone@example.com' : 'kept@example.com' }, i % 2 ? 'gone' : 'kept'),
    );
    expect((await capture.capture([s.record('req-1#0', many)])).size).toBe(0);
    expect((await capture.capture([s.record('req-2#0', [paid(90, { email: 'gone@example.com' }, 'gone')])])).size).toBe(0);
    const sketches = async () =>
      Promise.all((await s.repository.sketchesOf(s.workspaceId, s.sourceId)).map(async ({ head, bases }) => ({ open: OpenSketch.of(head, bases)!, bases })));
    expect((await sketches()).some(({ open }) => open.hasJournal)).toBe(true);

    expect(await forgetUser(s.repository, s.catalog, s.workspaceId, { userId: 'gone', email: 'gone@example.com' })).toBeGreaterThan(0);
    for (const { open, bases } of await sketches()) {
      expect(open.hasJournal).toBe(false);
      expect(bases.filter(Boolean)).toHaveLength(1);
      const { SampledEvents } = open.sketch.metadata();
      expect(SampledEvents.some((e) => e.userId === 'gone')).toBe(false);
      const values = [...open.sketch.values.values()].flatMap((counter) => [...counter.values()]);
      expect(values.filter((v) => v.includes('gone'))).toEqual([]);
    }
    // A regulation handed over again changes nothing more; the counts stay, and capture carries on.
    expect(await forgetUser(s.repository, s.catalog, s.workspaceId, { userId: 'gone' })).toBe(0);
    expect((await capture.capture([s.record('req-3#0', [paid(91, { plan: 'free' }, 'kept')])])).size).toBe(0);
    const [model] = await s.governance.eventModels(s.writeKey);
    expect(model!.TotalCount).toBe(82);
    expect((await s.governance.modelMetadata(model!.EventID)).FrequentValues.userId).toEqual([{ Value: 'kept', Frequency: 41 / 82 }]);
  });
});
