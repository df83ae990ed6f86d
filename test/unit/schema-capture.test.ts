import { randomBytes } from 'node:crypto';
import { flatten, schemaHash, schemaOf, valueText, versionOf } from '../../shared/domain/event-schemas/flatten';
import { LossyCounter } from '../../shared/domain/event-schemas/lossy-counter';
import { offer } from '../../shared/domain/event-schemas/reservoir';
import { LIMITS, Sketch } from '../../shared/domain/event-schemas/sketch';
import { MAX_EVENT_BYTES } from '../../shared/domain/ingestion/schemas';
import { STREAM_CONSUMERS } from '../../shared/contract/functions';

/** mulberry32: a tiny seeded PRNG, so statistical checks are reproducible. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const observeAll = (counter: LossyCounter, values: string[]) => values.forEach((v) => counter.observe(v));
const times = (value: string, n: number) => Array.from({ length: n }, () => value);
const see = (sketch: Sketch, event: Record<string, unknown>, at: string) => sketch.observe(event, flatten(event), at);

describe('flatten', () => {
  it('leaves out keys longer than 256 characters', () => {
    const long = 'k'.repeat(250);
    const flat = flatten({ a: { [long]: 1, short: 2 }, [`${long}-extra`]: { b: true } });
    expect([...flat.leaves.keys()]).toEqual([`a.${long}`, 'a.short']);
  });

  it('joins nested object keys with dots and turns arrays of objects into numeric path segments', () => {
    const flat = flatten({ a: { b: 1, c: 'x' }, items: [{ sku: 'A' }, { sku: 'B', qty: 2 }], ok: true });
    expect(Object.fromEntries(flat.leaves)).toEqual({
      'a.b': 1,
      'a.c': 'x',
      'items.0.sku': 'A',
      'items.1.sku': 'B',
      'items.1.qty': 2,
      ok: true,
    });
    expect([...flat.leaves.keys()]).toEqual(['a.b', 'a.c', 'items.0.sku', 'items.1.sku', 'items.1.qty', 'ok']);
    expect(flat.arrays).toEqual(['items']);
    expect(flat.nulls).toEqual([]);
  });

  it('gives the same paths however many events came before, also past the bound of the paths it keeps', () => {
    const event = { a: { b: 1 }, 'a.c': 2, items: [{ sku: 'A' }], __proto__x: null };
    const first = flatten(event);
    // 30,000 distinct keys: more paths than are kept between events, so the kept tree starts again.
    for (let i = 0; i < 300; i++) flatten(Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`key-${i}-${k}`, { v: k }])));
    for (const flat of [flatten(event), first]) {
      expect([...flat.leaves]).toEqual([
        ['a.b', 1],
        ['a.c', 2],
        ['items.0.sku', 'A'],
      ]);
      expect(flat.nulls).toEqual(['__proto__x']);
      expect(flat.arrays).toEqual(['items']);
    }
  });

  it('a scalar inside an array is keyed by its index', () => {
    const flat = flatten({ a: [1, 'x', true] });
    expect(schemaOf(flat)).toEqual({ 'a.0': 'float64', 'a.1': 'string', 'a.2': 'bool' });
    expect(flat.arrays).toEqual(['a']);
  });

  it('empty objects and arrays leave no key and are not listed as arrays', () => {
    const flat = flatten({ e: {}, f: [], g: { h: [], i: {} } });
    expect(flat.leaves.size).toBe(0);
    expect(flat.nulls).toEqual([]);
    expect(flat.arrays).toEqual([]);
  });

  it('null leaves are listed in nulls, not in leaves', () => {
    const flat = flatten({ n: null, deep: { n: null }, list: [null], v: 'x' });
    expect([...flat.leaves]).toEqual([['v', 'x']]);
    expect(flat.nulls).toEqual(['n', 'deep.n', 'list.0']);
    expect(flat.arrays).toEqual(['list']);
  });

  it('every JSON number is float64 and booleans are bool', () => {
    const schema = schemaOf(flatten({ i: 5, f: 4.5, neg: -1, zero: 0, t: true, fa: false, s: '5' }));
    expect(schema).toEqual({ i: 'float64', f: 'float64', neg: 'float64', zero: 'float64', t: 'bool', fa: 'bool', s: 'string' });
  });

  it('a top-level "__proto__" key is part of the schema like any other key', () => {
    const schema = schemaOf(flatten(JSON.parse('{"__proto__":"x","a":1}') as Record<string, unknown>));
    expect(Object.keys(schema)).toEqual(['__proto__', 'a']);
    expect(schemaHash(schema)).not.toBe(schemaHash({ a: 'float64' }));
  });
});

describe('schemaHash', () => {
  it('ignores key order and values', () => {
    const one = schemaOf(flatten({ a: 'x', b: 1 }));
    const other = schemaOf(flatten({ b: 99.5, a: 'something else' }));
    expect(schemaHash(one)).toMatch(/^[0-9a-f]{32}$/);
    expect(schemaHash(other)).toBe(schemaHash(one));
    expect(schemaHash({ b: 'float64', a: 'string' })).toBe(schemaHash({ a: 'string', b: 'float64' }));
  });

  it('changes with a type change or an added key', () => {
    const base = schemaHash({ a: 'string', b: 'float64' });
    expect(schemaHash({ a: 'string', b: 'string' })).not.toBe(base);
    expect(schemaHash({ a: 'string', b: 'float64', c: 'bool' })).not.toBe(base);
    expect(schemaHash({ a: 'string' })).not.toBe(base);
  });
});

describe('versionOf', () => {
  it('gives the schema and digest of schemaOf and schemaHash, whatever the key order, and never conflates two key sets', () => {
    const a = flatten({ x: 1, y: 'a' });
    const b = flatten({ y: 'b', x: 2 });
    const tricky = flatten({ 'x:float64,y': 'z' });
    expect(versionOf(a)).toEqual({ schema: schemaOf(a), hash: schemaHash(schemaOf(a)) });
    expect(versionOf(b).hash).toBe(versionOf(a).hash);
    expect(versionOf(tricky)).toEqual({ schema: { 'x:float64,y': 'string' }, hash: schemaHash({ 'x:float64,y': 'string' }) });
    expect(versionOf(tricky).hash).not.toBe(versionOf(a).hash);
  });
});

describe('valueText', () => {
  it('shows strings verbatim and numbers and booleans as JavaScript prints them', () => {
    expect(valueText('  Héllo ')).toBe('  Héllo ');
    expect(valueText(5)).toBe('5');
    expect(valueText(4.5)).toBe('4.5');
    expect(valueText(true)).toBe('true');
    expect(valueText(false)).toBe('false');
  });
});

describe('LossyCounter', () => {
  it('counts exactly below 1000 observations', () => {
    const counter = new LossyCounter();
    observeAll(counter, [...times('a', 500), ...times('b', 349), ...Array.from({ length: 150 }, (_, i) => `u${i}`)]);
    const state = counter.toState();
    expect(state.n).toBe(999);
    expect(state.floor).toBe(0);
    expect(state.candidates).toHaveLength(152);
    expect(state.candidates.slice(0, 3)).toEqual([
      ['a', 500, 0],
      ['b', 349, 0],
      ['u0', 1, 0],
    ]);
    expect(state.candidates.every(([, , delta]) => delta === 0)).toBe(true);
  });

  it('shows a value at (support - error) * n: with n = 300, 3 sightings are shown and 2 are not', () => {
    const counter = new LossyCounter();
    const pairs = Array.from({ length: 147 }, (_, i) => times(`v${i}`, 2)).flat();
    observeAll(counter, [...times('x', 3), ...times('y', 2), ...pairs, 'once']);
    expect(counter.observations).toBe(300);
    expect(counter.frequent()).toEqual([{ Value: 'x', Frequency: 0.01 }]);
  });

  // (0.01 - 0.001) is 0.009000000000000001 in binary: the threshold must not hide a value at exactly 0.9 %.
  it('a value seen exactly (support - error) * n times is shown (n = 1000, 9 sightings)', () => {
    const counter = new LossyCounter();
    const eights = Array.from({ length: 123 }, (_, i) => times(`v${i}`, 8)).flat();
    observeAll(counter, [...times('edge', 9), ...eights, ...times('w', 7)]);
    expect(counter.observations).toBe(1000);
    expect(counter.frequent()).toEqual([{ Value: 'edge', Frequency: 0.009 }]);
  });

  it('reports Frequency as count / n, most frequent first, then by value', () => {
    const counter = new LossyCounter();
    observeAll(counter, [...times('b', 3), ...times('a', 3), ...times('c', 4)]);
    const expected = [
      ['c', 0.4],
      ['a', 0.3],
      ['b', 0.3],
    ].map(([Value, Frequency]) => ({ Value, Frequency }));
    expect(counter.frequent()).toEqual(expected);
  });

  it('prunes values seen once early, keeping a 5% value within error * n of its true count, never above', () => {
    const counter = new LossyCounter(undefined, 1_000_000); // no cap: pure Lossy Counting
    let lateTruth = 0;
    for (let i = 0; i < 3000; i++) {
      const late = i === 5 || (i >= 1000 && i % 20 === 10);
      if (late) lateTruth++;
      counter.observe(i % 20 === 0 ? 'steady' : late ? 'late' : `u${i}`);
    }
    // 'late' was seen once before n = 1000, pruned there, then came back with delta 1.
    expect(counter.toState()).toEqual({
      n: 3000,
      floor: 0,
      candidates: [
        ['steady', 150, 0],
        ['late', 100, 1],
      ],
    });
    expect(lateTruth).toBe(101);
    expect(lateTruth - 100).toBeLessThanOrEqual(0.001 * 3000);
    expect(counter.frequent()).toEqual([
      { Value: 'steady', Frequency: 0.05 },
      { Value: 'late', Frequency: 100 / 3000 },
    ]);
  });

  it('with a small cap, a heavy value among many unique ones is still reported and never overcounted', () => {
    const counter = new LossyCounter(undefined, 20);
    let truth = 0;
    for (let i = 0; i < 10_000; i++) {
      const heavy = i % 10 === 9;
      if (heavy) truth++;
      counter.observe(heavy ? 'heavy' : `u${i}`);
      if ((i + 1) % 1000 === 0) {
        expect(counter.size).toBeLessThanOrEqual(20);
        const frequent = counter.frequent();
        expect(frequent.map((f) => f.Value)).toEqual(['heavy']);
        const count = (frequent[0]?.Frequency ?? 0) * (i + 1);
        expect(count).toBeLessThanOrEqual(truth + 1e-9);
        expect(count).toBeGreaterThanOrEqual(truth - (i + 1) / (20 * 0.9));
      }
    }
    expect(truth).toBe(1000);
  });

  it('round-trips through toState() and new LossyCounter(state)', () => {
    const counter = new LossyCounter(undefined, 20);
    for (let i = 0; i < 2500; i++) counter.observe(i % 7 === 0 ? 'seven' : i % 5 === 0 ? 'five' : `u${i}`);
    const state = counter.toState();
    expect(state.floor).toBeGreaterThan(0);
    const copy = new LossyCounter(JSON.parse(JSON.stringify(state)));
    expect(copy.toState()).toEqual(state);
    expect(copy.observations).toBe(2500);
    expect(copy.frequent()).toEqual(counter.frequent());
  });

  it('counts "__proto__" and "constructor" like any other value', () => {
    const counter = new LossyCounter();
    observeAll(counter, ['__proto__', 'constructor', '__proto__', 'constructor', '__proto__']);
    expect(counter.frequent()).toEqual([
      { Value: '__proto__', Frequency: 0.6 },
      { Value: 'constructor', Frequency: 0.4 },
    ]);
    expect(counter.toState().candidates).toEqual([
      ['__proto__', 3, 0],
      ['constructor', 2, 0],
    ]);
  });
});

describe('reservoir offer', () => {
  it('the first 5 items fill the sample in order without drawing a random number', () => {
    const sample: string[] = [];
    const random = jest.fn(() => 0);
    ['a', 'b', 'c', 'd', 'e'].forEach((item, i) => offer(sample, i + 1, item, 5, random));
    expect(sample).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(random).not.toHaveBeenCalled();
  });

  it('replaces slot floor(random * seen) only when it is below 5', () => {
    const sample = ['a', 'b', 'c', 'd', 'e'];
    offer(sample, 6, 'f', 5, () => 0.5); // floor(3) = 3
    expect(sample).toEqual(['a', 'b', 'c', 'f', 'e']);
    offer(sample, 7, 'g', 5, () => 0.7); // floor(4.9) = 4
    expect(sample).toEqual(['a', 'b', 'c', 'f', 'g']);
    offer(sample, 10, 'h', 5, () => 0.5); // floor(5) = 5: kept out
    offer(sample, 8, 'i', 5, () => 0.99); // floor(7.92) = 7: kept out
    expect(sample).toEqual(['a', 'b', 'c', 'f', 'g']);
    offer(sample, 8, 'j', 5, () => 0); // slot 0
    expect(sample).toEqual(['j', 'b', 'c', 'f', 'g']);
  });

  it('samples each of 20 items about 5/20 of the time', () => {
    const random = mulberry32(42);
    const runs = 20_000;
    const hits = new Array<number>(20).fill(0);
    for (let run = 0; run < runs; run++) {
      const sample: number[] = [];
      for (let item = 0; item < 20; item++) offer(sample, item + 1, item, 5, random);
      sample.forEach((item) => (hits[item] = (hits[item] ?? 0) + 1));
    }
    expect(hits.reduce((a, b) => a + b, 0)).toBe(5 * runs);
    // expected 5000 each, standard deviation about 61: allow +-5%
    for (const count of hits) {
      expect(count).toBeGreaterThan(4750);
      expect(count).toBeLessThan(5250);
    }
  });
});

describe('Sketch', () => {
  it('does not count the values of per-event fields (ids and times), but keeps them in schema and key counts', () => {
    const sketch = new Sketch();
    const event = { type: 'track', messageId: 'm1', receivedAt: 't', sentAt: 't', timestamp: 't', originalTimestamp: 't', userId: 'u1' };
    sketch.observe(event, flatten(event), 't');
    expect(Object.keys(sketch.metadata().FrequentValues)).toEqual(['type', 'userId']);
    expect(sketch.keyCountsView()).toEqual({
      messageId: 1,
      originalTimestamp: 1,
      receivedAt: 1,
      sentAt: 1,
      timestamp: 1,
      type: 1,
      userId: 1,
    });
  });

  const e1 = { id: '1', amount: 5, v: 1, meta: { x: null } };
  const e2 = { id: 2, amount: null, v: 'x', ok: true };
  const e3 = { id: '3', amount: 7.5, v: 2, ok: false, tags: ['a'] };
  const small = () => {
    const sketch = new Sketch();
    see(sketch, e1, '2024-01-02T00:00:00.000Z');
    see(sketch, e2, '2024-01-01T00:00:00.000Z');
    see(sketch, e3, '2024-01-03T00:00:00.000Z');
    return sketch;
  };

  it('counts events, keys present and not null, and unions types in first-seen order', () => {
    const sketch = small();
    expect(sketch.total).toBe(3);
    expect(sketch.schemaView()).toEqual({ amount: 'float64', id: 'string,float64', ok: 'bool', 'tags.0': 'string', v: 'float64,string' });
    expect(sketch.keyCountsView()).toEqual({ amount: 2, id: 3, ok: 2, 'tags.0': 1, v: 3 });
    expect(Object.fromEntries(sketch.topLevel)).toEqual({ id: 3, amount: 3, v: 3, meta: 1, ok: 2, tags: 1 });
    expect([...sketch.nullable]).toEqual(['meta.x', 'amount']);
    expect([...sketch.arrays]).toEqual(['tags']);
    expect(sketch.samples).toEqual([e1, e2, e3]);
  });

  it('firstSeen and lastSeen are the earliest and latest `at`, whatever the arrival order', () => {
    const sketch = small();
    expect(sketch.firstSeen).toBe('2024-01-01T00:00:00.000Z');
    expect(sketch.lastSeen).toBe('2024-01-03T00:00:00.000Z');
  });

  it('metadata lists frequent values by key in key order, leaves out keys without any, and samples original events', () => {
    const sketch = new Sketch();
    const events = Array.from({ length: 200 }, (_, i) => ({ zeta: i % 2 ? 'a' : 'b', id: `e${i}`, alpha: i % 4 }));
    events.forEach((event, i) => see(sketch, event, `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`));
    const metadata = sketch.metadata();
    expect(metadata.TotalCount).toBe(200);
    expect(Object.keys(metadata.FrequentValues)).toEqual(['alpha', 'zeta']);
    expect(metadata.FrequentValues).toEqual({
      alpha: ['0', '1', '2', '3'].map((Value) => ({ Value, Frequency: 0.25 })),
      zeta: [
        { Value: 'a', Frequency: 0.5 },
        { Value: 'b', Frequency: 0.5 },
      ],
    });
    expect(metadata.SampledEvents).toHaveLength(5);
    for (const sampled of metadata.SampledEvents) expect(events).toContain(sampled);
  });

  it('encode() and Sketch.decode() round-trip everything, applied record ids included', () => {
    const sketch = small();
    sketch.markApplied('shard-1:0001');
    const copy = Sketch.decode(sketch.encode());
    expect(copy.total).toBe(3);
    expect([copy.firstSeen, copy.lastSeen]).toEqual([sketch.firstSeen, sketch.lastSeen]);
    expect(copy.schemaView()).toEqual(sketch.schemaView());
    expect(copy.keyCountsView()).toEqual(sketch.keyCountsView());
    expect([...copy.topLevel]).toEqual([...sketch.topLevel]);
    expect([...copy.arrays]).toEqual([...sketch.arrays]);
    expect([...copy.nullable]).toEqual([...sketch.nullable]);
    // Candidates come back in value order (they are stored sorted): their counts are what must not change.
    const counters = (s: Sketch) =>
      [...s.values].map(([k, c]) => [k, { ...c.toState(), candidates: c.toState().candidates.sort(([a], [b]) => a.localeCompare(b)) }]);
    expect(counters(copy)).toEqual(counters(sketch));
    expect(copy.metadata()).toEqual(sketch.metadata());
    expect(copy.samples).toEqual([e1, e2, e3]);
    expect(copy.hasApplied('shard-1:0001')).toBe(true);
    expect(copy.hasApplied('shard-1:0002')).toBe(false);
    expect(Sketch.decode(undefined).total).toBe(0);
  });

  it('remembers as many applied records as a stream batch of the capture consumer holds', () => {
    expect(LIMITS.appliedRecords).toBeGreaterThanOrEqual(STREAM_CONSUMERS.schemaCapture!.batchSize);
  });

  it(`remembers at most ${LIMITS.appliedRecords} applied records, forgetting the oldest`, () => {
    const sketch = new Sketch();
    for (let i = 0; i <= LIMITS.appliedRecords; i++) sketch.markApplied(`r${i}`);
    const copy = Sketch.decode(sketch.encode());
    for (const s of [sketch, copy]) {
      expect(s.hasApplied('r0')).toBe(false);
      expect(s.hasApplied('r1')).toBe(true);
      expect(s.hasApplied(`r${LIMITS.appliedRecords}`)).toBe(true);
    }
  });

  it('encodes within LIMITS.sketchBytes however many long unique values it has seen', () => {
    const sketch = new Sketch();
    const keys = Array.from({ length: 120 }, (_, k) => `key${k}`);
    for (let i = 0; i < 400; i++) {
      const event = Object.fromEntries(keys.map((key) => [key, randomBytes(125).toString('hex')]));
      expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(MAX_EVENT_BYTES);
      see(sketch, event, '2024-01-01T00:00:00.000Z');
    }
    const encoded = sketch.encode();
    expect(encoded.length).toBeLessThanOrEqual(LIMITS.sketchBytes);
    const copy = Sketch.decode(encoded);
    expect(copy.total).toBe(400);
    expect(Object.keys(copy.schemaView())).toHaveLength(120);
    expect(copy.keyCountsView().key0).toBe(400);
    expect(copy.samples.length).toBeGreaterThanOrEqual(1);
    expect(copy.values.get('key0')?.observations).toBe(400);
    expect(copy.values.get('key0')?.size).toBeLessThan(200);
  });

  it('encodes within LIMITS.sketchBytes whatever keys hostile events bring: long, random, null, arrays, top-level', () => {
    const sketch = new Sketch();
    const name = () => randomBytes(190).toString('base64').slice(0, 250);
    for (let i = 0; i < 40; i++) {
      const properties = Object.fromEntries(Array.from({ length: 30 }, () => [name(), randomBytes(100).toString('hex')]));
      const nulls = Object.fromEntries(Array.from({ length: 40 }, () => [name(), null]));
      const lists = Object.fromEntries(Array.from({ length: 20 }, () => [name(), [1]]));
      const topLevel = Object.fromEntries(Array.from({ length: 10 }, () => [name(), 'x']));
      const event = { type: 'track', event: 'Hostile', p: properties, n: nulls, l: lists, ...topLevel };
      expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(MAX_EVENT_BYTES);
      see(sketch, event, '2024-01-01T00:00:00.000Z');
    }
    expect(sketch.schema.size).toBe(LIMITS.keysPerModel);
    expect(sketch.topLevel.size).toBe(LIMITS.topLevelFields);
    const encoded = sketch.encode();
    expect(encoded.length).toBeLessThanOrEqual(LIMITS.sketchBytes);
    const copy = Sketch.decode(encoded);
    expect([copy.total, copy.schema.size, copy.keyCounts.size]).toEqual([40, LIMITS.keysPerModel, LIMITS.keysPerModel]);
    expect(copy.samples.length).toBeGreaterThanOrEqual(1);
  });
});
