import { applyTo, groupByModel, groupByVersion, type Observation } from '../../shared/domain/event-schemas/capture-service';
import { flatten } from '../../shared/domain/event-schemas/flatten';
import type { SketchBase, SketchHead, SketchWrite } from '../../shared/domain/event-schemas/records';
import { Sketch } from '../../shared/domain/event-schemas/sketch';
import { LAYOUT, OpenSketch, SketchCache } from '../../shared/domain/event-schemas/sketch-layout';

/** One sketch's items, kept in memory and written as the repository writes them (conditions included). */
class Items {
  head?: SketchHead = { rev: 0, token: 7 };
  bases: (SketchBase | undefined)[] = [];

  open(): OpenSketch {
    return OpenSketch.of(this.head, this.bases)!;
  }

  save(rev: number, { head, base }: SketchWrite): boolean {
    if (base) {
      const there = this.bases[base.slot];
      if (there && there.token === base.token && there.rev >= base.rev) return false;
      this.bases[base.slot] = base;
    }
    if ((this.head?.rev ?? 0) !== rev) return false;
    this.head = head;
    return true;
  }
}

const counters = (s: Sketch) =>
  Object.fromEntries([...s.values].map(([key, c]) => [key, { ...c.toState(), candidates: c.toState().candidates.sort(([a], [b]) => (a < b ? -1 : 1)) }]));
/** Everything a sketch holds but its samples (drawn at random) and the order of candidates (stored sorted). */
const state = (s: Sketch) => ({
  total: s.total,
  seen: [s.firstSeen, s.lastSeen],
  schema: [...s.schema],
  keyCounts: [...s.keyCounts],
  topLevel: [...s.topLevel],
  arrays: [...s.arrays],
  nullable: [...s.nullable],
  counters: counters(s),
  applied: s.applied,
  samples: s.samples.length,
});

const event = (i: number) => ({
  type: 'track',
  event: 'Paid',
  userId: `u${i % 37}`,
  messageId: `m${i}`,
  receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3600)).toISOString(),
  properties: {
    plan: ['free', 'pro', 'team'][i % 3],
    amount: (i % 150) / 4,
    ...(i % 5 === 0 && { coupon: null }),
    items: i % 7 ? [{ sku: `s-${i % 90}` }] : [],
  },
});
const recordOf = (id: string, from: number, count: number) => ({
  recordId: id,
  workspaceId: 'w',
  sourceId: 's',
  events: Array.from({ length: count }, (_, k) => event(from + k)),
});
const observationsOf = (records: ReturnType<typeof recordOf>[]): Observation[] => groupByModel(records).flatMap((batch) => batch.observations);

describe('sketch snapshots', () => {
  it('round-trip every candidate value exactly: numbers with leading zeros, fractions, long digit runs, any character', () => {
    const values = ['0', '00', '007', '1.50', '1.5', '0.05', '-5', '1e+21', '12345678901234567', '203.0.113.7', 'p-10', 'p-9', '5.', '.5', '1.2.3'];
    const odd = ['', '\ud800', 'a\udc00b', '😀1', '😀😁', 'x'.repeat(200), '__proto__'];
    const sketch = new Sketch();
    for (const value of [...values, ...odd]) sketch.countLeaf('k', 'string', value);
    for (let i = 0; i < 300; i++) sketch.countLeaf('amount', 'float64', String(Math.round(i * 7.31 * 100) / 100));
    expect(counters(Sketch.decode(sketch.encode()))).toEqual(counters(sketch));
  });
});

describe('sketch heads, journals and bases', () => {
  it('a sketch read back from its head and base is the sketch that observed every event directly', () => {
    const items = new Items();
    const direct = new Sketch();
    let from = 0;
    // Small captures (journaled), large ones (folded at once), and records handed over again.
    for (const [i, size] of [1, 3, 80, 2, 2, 5, 200, 1, 1, 40, 3].entries()) {
      const records = [recordOf(`r${i}`, from, size), ...(i % 3 === 2 ? [recordOf(`r${i - 1}`, 0, 1)] : [])];
      from += size;
      const observations = observationsOf(records);
      const { write } = applyTo(items.open(), observations);
      expect(items.save(items.head!.rev, write!)).toBe(true);
      for (const o of observationsOf([records[0]!])) direct.observe(o.event, o.flat, o.at);
      direct.markApplied(`r${i}`);
      expect(state(items.open().sketch)).toEqual(state(direct));
    }
    expect(items.open().sketch.total).toBe(from);
  });

  it('writes the head alone while the journal is small, and folds it into a base past LAYOUT.headBytes', () => {
    const items = new Items();
    const writes: SketchWrite[] = [];
    for (let i = 0; i < 150; i++) {
      const { write } = applyTo(items.open(), observationsOf([recordOf(`r${i}`, i * 2, 2)]));
      items.save(items.head!.rev, write!);
      writes.push(write!);
    }
    const folds = writes.filter((w) => w.base);
    expect(folds.length).toBeGreaterThan(1);
    expect(folds.length).toBeLessThan(writes.length / 5);
    for (const w of writes) expect(w.head.body!.length).toBeLessThanOrEqual(LAYOUT.maxHeadBytes);
    // Two slots, used in turn: the one the head names is never the one a fold writes.
    folds.slice(1).forEach((fold, i) => expect(fold.base!.slot).not.toBe(folds[i]!.base!.slot));
  });

  it('folds at once a capture of more events than LAYOUT.journalEvents', () => {
    const items = new Items();
    const { write } = applyTo(items.open(), observationsOf([recordOf('r', 0, LAYOUT.journalEvents + 1)]));
    expect(write!.base?.rev).toBe(1);
  });

  it('never folds over a base written at its next revision by another writer: it moves the head past it first', () => {
    const items = new Items();
    const theirs = applyTo(items.open(), observationsOf([recordOf('a', 0, 100)])).write!;
    items.bases[theirs.base!.slot] = theirs.base; // their base landed; their head has not (yet, or ever)
    const blocked = applyTo(items.open(), observationsOf([recordOf('b', 100, 100)])).write!;
    expect([blocked.retry, blocked.base, blocked.head.rev, blocked.head.total]).toEqual([true, undefined, 1, undefined]);
    expect(items.save(0, blocked)).toBe(true);
    // Read again, the fold goes ahead over the base no head names.
    const retried = applyTo(items.open(), observationsOf([recordOf('b', 100, 100)])).write!;
    expect(items.save(1, retried)).toBe(true);
    expect(items.open().sketch.total).toBe(100);
  });

  it('reads nothing from a head whose base was written over after it was read: the caller reads both again', () => {
    const items = new Items();
    items.save(0, applyTo(items.open(), observationsOf([recordOf('a', 0, 100)])).write!);
    const head = items.head;
    items.save(1, applyTo(items.open(), observationsOf([recordOf('b', 100, 100)])).write!);
    items.save(2, applyTo(items.open(), observationsOf([recordOf('c', 200, 100)])).write!);
    expect(OpenSketch.of(head, items.bases)).toBeUndefined();
    expect(items.open().sketch.total).toBe(300);
  });

  it("leaves out of a version's applied records those its model holds, noting the model's revision", () => {
    const records = [recordOf('a', 0, 400), recordOf('b', 400, 400)];
    const [version] = [...groupByVersion(observationsOf(records)).values()].sort((a, b) => b.observations.length - a.observations.length);
    if (!version) throw new Error('no version');
    const items = new Items();
    const model = { applied: new Set(version.observations.filter((o) => o.recordId === 'a').map((o) => o.digest)), rev: 9 };
    const { write } = applyTo(items.open(), version.observations, model);
    items.save(0, write!);
    const sketch = items.open().sketch;
    expect([sketch.hasApplied('a'), sketch.hasApplied('b'), sketch.prunedAt]).toEqual([false, true, 9]);
    // The model's records were not counted again in it either.
    expect(sketch.total).toBe(version.observations.filter((o) => o.recordId === 'b').length);
  });
});

it('keeps a written sketch for the next capture only while the stored head is the one it wrote', () => {
  const items = new Items();
  const cache = new SketchCache();
  const capture = (open: OpenSketch, id: string, from: number, size: number) => {
    const { write } = applyTo(open, observationsOf([recordOf(id, from, size)]));
    expect(items.save(open.rev, write!)).toBe(true);
    cache.keep('k', open, write!);
  };
  capture(items.open(), 'a', 0, 3);
  const kept = cache.take('k', items.head)!;
  expect(state(kept.sketch)).toEqual(state(items.open().sketch));
  expect(cache.take('k', items.head)).toBeUndefined(); // taken: the caller changes it
  capture(kept, 'b', 3, 100); // folded
  capture(cache.take('k', items.head)!, 'c', 103, 2); // journaled
  expect(state(cache.take('k', items.head)!.sketch)).toEqual(state(items.open().sketch));
  // Another consumer writes in between: the head read is not the one kept, which is not used.
  capture(items.open(), 'd', 105, 2);
  const { write } = applyTo(items.open(), observationsOf([recordOf('e', 107, 2)]));
  items.save(items.head!.rev, write!);
  expect(cache.take('k', items.head)).toBeUndefined();
});

it('flattens a journaled event and a snapshot alike: the journal replays what observe() saw', () => {
  const items = new Items();
  const odd = JSON.parse(
    '{"type":"page","":"blank","__proto__":"p","receivedAt":"2026-01-01T00:00:00.000Z","properties":{"":1,"a.b":true,"list":[null,2],"n":null}}',
  ) as Record<string, unknown>;
  const direct = new Sketch();
  direct.observe(odd, flatten(odd), '2026-01-01T00:00:00.000Z');
  const [batch] = groupByModel([{ recordId: 'r', workspaceId: 'w', sourceId: 's', events: [odd] }]);
  const { write } = applyTo(items.open(), batch!.observations);
  expect(write!.base).toBeUndefined(); // journaled
  items.save(0, write!);
  direct.markApplied('r');
  expect(state(items.open().sketch)).toEqual(state(direct));
  expect(items.open().sketch.samples).toEqual([odd]);
});
