import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { normaliseUserId } from '../regulations/suppression-index';
import { MAX_PATH_CHARS, sortedObject, typeName, valueText, type FlatEvent } from './flatten';
import { LossyCounter, MAX_CANDIDATES, type FrequentValue, type LossyCounterState } from './lossy-counter';
import { offer } from './reservoir';

/**
 * What schema capture knows of one event model or one event version: counts, the (union) schema, key
 * counts, frequent values, sampled events. Stored gzipped in one item and rewritten under a revision check,
 * so concurrent consumers never lose a count; `applied` names the stream records already in it, so a
 * replayed record is not counted twice.
 */
export const LIMITS = {
  /** Distinct keys a model or version tracks (schema, key counts); keys past it are left out. */
  keysPerModel: 1000,
  /** Top-level fields whose presence is counted (for `required` in the JSON Schema), first come. */
  topLevelFields: 200,
  /** Keys whose values are counted for frequent values, first come. */
  countedKeys: 300,
  /** Longer values are counted by their first 200 characters. */
  valueChars: 200,
  /**
   * Stream records remembered as applied (by a 60-bit digest of their id), so a retried batch is
   * recognised: Lambda retries a batch (at most 200 records, STREAM_CONSUMERS) from its first failed record.
   */
  appliedRecords: 400,
  /**
   * Stored size of a sketch (gzipped): past it, fewer candidate values are kept, then fewer samples, then no
   * array and null paths, then no value counters. Keys (1,000 of at most 256 characters), counts and one
   * sample always fit.
   */
  sketchBytes: 300 * 1024,
} as const;

/**
 * Fields SDKs and ingestion give every event its own value (or its request's): no value of theirs can be
 * seen in one event in a hundred, yet each would keep a full list of candidates in every sketch write.
 * They are in schemas, key counts and samples, but not counted for frequent values.
 */
export const UNCOUNTED_VALUES: ReadonlySet<string> = new Set(['messageId', 'receivedAt', 'sentAt', 'timestamp', 'originalTimestamp']);

interface SketchState {
  total: number;
  firstSeen?: string;
  lastSeen?: string;
  /** key, type names, events with it not null: one list, so a key is stored once. */
  keys: [string, string, number][];
  topLevel: [string, number][];
  arrays: string[];
  nullable: string[];
  /** Counters by the index of their key in `keys` (counted keys are always known keys), so no key is stored twice. */
  values: [number, LossyCounterState][];
  samples: Record<string, unknown>[];
  applied: string[];
}

export interface Metadata {
  SampledEvents: Record<string, unknown>[];
  TotalCount: number;
  FrequentValues: Record<string, FrequentValue[]>;
}

const digest = (recordId: string) => createHash('sha256').update(recordId).digest('base64url').slice(0, 10);

export class Sketch {
  total = 0;
  firstSeen?: string;
  lastSeen?: string;
  /** key → type names, comma-separated in first-seen order when the key was seen with several. */
  readonly schema = new Map<string, string>();
  /** key → events in which it was present and not null. */
  readonly keyCounts = new Map<string, number>();
  /** top-level field → events that had it (any value): what every event has is required in the JSON Schema. */
  readonly topLevel = new Map<string, number>();
  readonly arrays = new Set<string>();
  readonly nullable = new Set<string>();
  readonly values = new Map<string, LossyCounter>();
  samples: Record<string, unknown>[] = [];
  private applied: string[] = [];

  static decode(data: Uint8Array | undefined): Sketch {
    const sketch = new Sketch();
    if (!data) return sketch;
    const state = JSON.parse(gunzipSync(data).toString('utf8')) as SketchState;
    sketch.total = state.total;
    sketch.firstSeen = state.firstSeen;
    sketch.lastSeen = state.lastSeen;
    for (const [key, types, count] of state.keys) {
      sketch.schema.set(key, types);
      sketch.keyCounts.set(key, count);
    }
    state.topLevel.forEach(([k, v]) => sketch.topLevel.set(k, v));
    state.arrays.forEach((k) => sketch.arrays.add(k));
    state.nullable.forEach((k) => sketch.nullable.add(k));
    for (const [index, counter] of state.values) {
      const key = state.keys[index]?.[0];
      if (key !== undefined) sketch.values.set(key, new LossyCounter(counter));
    }
    sketch.samples = state.samples;
    sketch.applied = state.applied;
    return sketch;
  }

  /** Gzipped state within the size budget (LIMITS.sketchBytes says what gives way, in which order). */
  encode(): Buffer {
    let encoded = this.pack();
    for (let cap = MAX_CANDIDATES / 2; encoded.length > LIMITS.sketchBytes && cap >= 1; cap = Math.floor(cap / 2)) {
      this.values.forEach((counter) => counter.limit(cap));
      encoded = this.pack();
    }
    while (encoded.length > LIMITS.sketchBytes && this.samples.length > 1) {
      this.samples.pop();
      encoded = this.pack();
    }
    // Last, the JSON Schema's detail (which paths were arrays or null), then the value counters: keys,
    // counts and a sample always fit.
    const lastResorts = [() => (this.arrays.clear(), this.nullable.clear()), () => this.values.clear()];
    for (const giveWay of lastResorts) {
      if (encoded.length <= LIMITS.sketchBytes) break;
      giveWay();
      encoded = this.pack();
    }
    return encoded;
  }

  hasApplied(recordId: string): boolean {
    return this.applied.includes(digest(recordId));
  }

  markApplied(recordId: string): void {
    this.applied.push(digest(recordId));
    if (this.applied.length > LIMITS.appliedRecords) this.applied.splice(0, this.applied.length - LIMITS.appliedRecords);
  }

  /** Counts one event: `flat` is its flattening, `at` when it was received. */
  observe(event: Record<string, unknown>, flat: FlatEvent, at: string): void {
    this.total++;
    if (!this.firstSeen || at < this.firstSeen) this.firstSeen = at;
    if (!this.lastSeen || at > this.lastSeen) this.lastSeen = at;
    for (const [key, value] of flat.leaves) {
      const type = typeName(value);
      const known = this.schema.get(key);
      if (known === undefined) {
        if (this.schema.size >= LIMITS.keysPerModel) continue;
        this.schema.set(key, type);
      } else if (!known.split(',').includes(type)) this.schema.set(key, `${known},${type}`);
      this.keyCounts.set(key, (this.keyCounts.get(key) ?? 0) + 1);
      if (UNCOUNTED_VALUES.has(key)) continue;
      let counter = this.values.get(key);
      if (!counter && this.values.size < LIMITS.countedKeys) this.values.set(key, (counter = new LossyCounter()));
      counter?.observe(valueText(value).slice(0, LIMITS.valueChars));
    }
    for (const key of Object.keys(event)) {
      const seen = this.topLevel.get(key);
      if (seen !== undefined) this.topLevel.set(key, seen + 1);
      else if (this.topLevel.size < LIMITS.topLevelFields && key.length <= MAX_PATH_CHARS) this.topLevel.set(key, 1);
    }
    for (const path of flat.arrays) if (this.arrays.size < LIMITS.keysPerModel) this.arrays.add(path);
    for (const path of flat.nulls) if (this.nullable.size < LIMITS.keysPerModel) this.nullable.add(path);
    offer(this.samples, this.total, event);
  }

  /**
   * A deleted user leaves the sketch: the sampled events with their userId, and, under every key, the
   * candidate values equal to one of their identifiers. Counts stay (they are not personal data).
   * True when anything changed.
   */
  forget(userId: string, identifiers: ReadonlySet<string>): boolean {
    const kept = this.samples.filter((event) => normaliseUserId(event.userId) !== userId);
    let changed = kept.length < this.samples.length;
    this.samples = kept;
    for (const counter of this.values.values()) for (const value of identifiers) if (counter.forget(value)) changed = true;
    return changed;
  }

  schemaView(): Record<string, string> {
    return sortedObject(this.schema);
  }

  keyCountsView(): Record<string, number> {
    return sortedObject(this.keyCounts);
  }

  metadata(): Metadata {
    const frequent: [string, FrequentValue[]][] = [];
    for (const [key, counter] of this.values) {
      const values = counter.frequent();
      if (values.length > 0) frequent.push([key, values]);
    }
    return { SampledEvents: this.samples, TotalCount: this.total, FrequentValues: sortedObject(frequent) };
  }

  private pack(): Buffer {
    const index = new Map([...this.schema.keys()].map((key, i) => [key, i]));
    const state: SketchState = {
      total: this.total,
      firstSeen: this.firstSeen,
      lastSeen: this.lastSeen,
      keys: [...this.schema].map(([key, types]) => [key, types, this.keyCounts.get(key) ?? 0]),
      topLevel: [...this.topLevel],
      arrays: [...this.arrays],
      nullable: [...this.nullable],
      values: [...this.values].map(([key, counter]) => [index.get(key)!, counter.toState()]),
      samples: this.samples,
      applied: this.applied,
    };
    return gzipSync(JSON.stringify(state));
  }
}
