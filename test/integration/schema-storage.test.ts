import { SchemaCapture, type AcceptedRecord } from '../../shared/domain/event-schemas/capture-service';
import { forgetUser } from '../../shared/domain/event-schemas/forget-user';
import { OpenSketch } from '../../shared/domain/event-schemas/sketch-layout';
import { fileRuntime } from '../support/runtime';
import { schemaSource } from '../support/schema-source';

/**
 * How capture stores sketches (a head with a journal, two base slots) against DynamoDB Local: counts
 * stay exact whichever way a capture is written, and a forgotten user leaves journals and bases alike.
 */
const rt = fileRuntime();

async function setup() {
  const s = await schemaSource(rt);
  const record = (id: string, events: Record<string, unknown>[]): AcceptedRecord => ({
    recordId: id,
    workspaceId: s.workspaceId,
    sourceId: s.sourceId,
    events,
  });
  return { ...s, record };
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

describe('sketch storage', () => {
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
