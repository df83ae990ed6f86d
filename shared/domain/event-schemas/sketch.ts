import { createHash } from 'node:crypto';
import { normaliseUserId } from '../regulations/suppression-index';
import { MAX_PATH_CHARS, sortedObject, typeName, valueText, type FlatEvent, type TypeName } from './flatten';
import { LossyCounter, type FrequentValue } from './lossy-counter';
import { offer, SAMPLE_SIZE } from './reservoir';
import { readSnapshot, writeSnapshot } from './sketch-codec';

/**
 * What schema capture knows of one event model or one event version: counts, the (union) schema, key
 * counts, frequent values, sampled events, and the stream records already in it (so a replayed record is
 * not counted twice). How it is stored (a snapshot and a journal of later observations) is
 * sketch-layout.ts; its bytes are sketch-codec.ts.
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
   * Stream records remembered as applied (by a 48-bit digest of their id), so a batch handed over again is
   * recognised whole: Lambda hands a batch (at most STREAM_CONSUMERS.schemaCapture.batchSize records, a
   * thousand) over again from its first failed record, or all of it when an invocation ends early. Six bytes
   * a record in every base (its own partition's, keys.schemaBaseApart).
   */
  appliedRecords: 1000,
  /**
   * Stored size of a snapshot (compressed): past it, fewer candidate values are kept, then fewer samples,
   * then no array and null paths, then no value counters. Keys (1,000 of at most 256 characters), counts and
   * one sample always fit.
   */
  sketchBytes: 300 * 1024,
} as const;

/**
 * Fields SDKs and ingestion give every event its own value (or its request's): no value of theirs can be
 * seen in one event in a hundred, yet each would keep a full list of candidates in every sketch write.
 * They are in schemas, key counts and samples, but not counted for frequent values.
 */
export const UNCOUNTED_VALUES: ReadonlySet<string> = new Set(['messageId', 'receivedAt', 'sentAt', 'timestamp', 'originalTimestamp']);

export interface DistinctValues {
  Count: number;
  /** False when Count is a lower bound (some values were dropped from the counter). */
  Exact: boolean;
  /** The values counted. */
  Of: number;
}

export interface Metadata {
  SampledEvents: Record<string, unknown>[];
  TotalCount: number;
  FrequentValues: Record<string, FrequentValue[]>;
}

/** A stream record as sketches remember it: the first 48 bits of the SHA-256 of its id. */
export const recordDigest = (recordId: string): number => createHash('sha256').update(recordId).digest().readUIntBE(0, 6);

interface KeyStats {
  types: string;
  count: number;
  /** Whether its values are counted (not one of UNCOUNTED_VALUES). */
  counted: boolean;
  counter?: LossyCounter;
}

export class Sketch {
  total = 0;
  firstSeen?: string;
  lastSeen?: string;
  /**
   * Per key: its type names (comma-separated in first-seen order when it was seen with several), the events
   * in which it was present and not null, and its value counter: one lookup for each leaf counted.
   */
  private readonly keys = new Map<string, KeyStats>();
  /** top-level field → events that had it (any value): what every event has is required in the JSON Schema. */
  readonly topLevel = new Map<string, number>();
  readonly arrays = new Set<string>();
  readonly nullable = new Set<string>();
  /** key → the counter of its values (the keys counted, in the order their counters began). */
  readonly values = new Map<string, LossyCounter>();
  samples: Record<string, unknown>[] = [];
  /**
   * Digests of the stream records applied, oldest first. A version's list leaves out records its model
   * holds (they were written to every version before the model): `prunedAt` is the model revision whose
   * records it left out, so a capture that read the model before that reads it again.
   */
  applied: number[] = [];
  prunedAt = 0;
  /** Keys and top-level fields in the order they were first seen: journal entries name them by position. */
  readonly keyNames: string[] = [];
  readonly topLevelNames: string[] = [];

  /** A stored snapshot (either format; none is an empty sketch). */
  static decode(data: Uint8Array | undefined): Sketch {
    const sketch = new Sketch();
    if (data) readSnapshot(data, sketch);
    return sketch;
  }

  /** The snapshot within the size budget (LIMITS.sketchBytes says what gives way, in which order). */
  encode(): Buffer {
    return writeSnapshot(this, LIMITS.sketchBytes);
  }

  hasApplied(record: string | number): boolean {
    return this.applied.includes(typeof record === 'number' ? record : recordDigest(record));
  }

  /** Leaves out the applied records `model` holds (a version's list, `model` its model's as of revision `rev`). */
  prune(model: ReadonlySet<number>, rev: number): void {
    this.applied = this.applied.filter((digest) => !model.has(digest));
    this.prunedAt = Math.max(this.prunedAt, rev);
  }

  markApplied(record: string | number): void {
    this.applied.push(typeof record === 'number' ? record : recordDigest(record));
    if (this.applied.length > LIMITS.appliedRecords) this.applied.splice(0, this.applied.length - LIMITS.appliedRecords);
  }

  /** Counts one event: `flat` is its flattening, `at` when it was received. Returns the sample slot it took, or -1. */
  observe(event: Record<string, unknown>, flat: FlatEvent, at: string): number {
    this.seen(at);
    for (const [key, value] of flat.leaves) this.countValue(key, value);
    for (const key of Object.keys(event)) this.countTopLevel(key);
    for (const path of flat.arrays) this.addArray(path);
    for (const path of flat.nulls) this.addNull(path);
    return offer(this.samples, this.total, event);
  }

  // What an observation does, one part at a time: observe() and a journal's replay both come through here.

  seen(at: string): void {
    this.total++;
    this.widen(at);
  }

  /** First and last seen, so that they include `at`. */
  widen(at: string): void {
    if (!this.firstSeen || at < this.firstSeen) this.firstSeen = at;
    if (!this.lastSeen || at > this.lastSeen) this.lastSeen = at;
  }

  /** A leaf of type `type`; `text` is its value as counted (undefined for the values not counted). */
  countLeaf(key: string, type: TypeName, text: string | undefined): void {
    const stats = this.statsOf(key, type);
    if (stats && text !== undefined) this.counterOf(key, stats)?.observe(text);
  }

  /** A leaf as observe() finds it: countLeaf's work, the value's text made only for a key that is counted. */
  private countValue(key: string, value: string | number | boolean): void {
    const stats = this.statsOf(key, typeName(value));
    if (!stats?.counted) return;
    const text = typeof value === 'string' ? (value.length > LIMITS.valueChars ? value.slice(0, LIMITS.valueChars) : value) : valueText(value);
    this.counterOf(key, stats)?.observe(text);
  }

  /** The key's stats, counted once more with a value of type `type` (undefined past LIMITS.keysPerModel). */
  private statsOf(key: string, type: TypeName): KeyStats | undefined {
    let stats = this.keys.get(key);
    if (stats === undefined) {
      if (this.keys.size >= LIMITS.keysPerModel) return undefined;
      this.keys.set(key, (stats = { types: type, count: 0, counted: !UNCOUNTED_VALUES.has(key), counter: undefined }));
      this.keyNames.push(key);
    } else if (stats.types !== type && !stats.types.split(',').includes(type)) stats.types = `${stats.types},${type}`;
    stats.count++;
    return stats;
  }

  private counterOf(key: string, stats: KeyStats): LossyCounter | undefined {
    if (stats.counter || this.values.size >= LIMITS.countedKeys) return stats.counter;
    const counter = (stats.counter = new LossyCounter());
    this.values.set(key, counter);
    return counter;
  }

  /** key → type names, comma-separated in first-seen order when the key was seen with several. */
  get schema(): Map<string, string> {
    return new Map([...this.keys].map(([key, { types }]) => [key, types]));
  }

  /** key → events in which it was present and not null. */
  get keyCounts(): Map<string, number> {
    return new Map([...this.keys].map(([key, { count }]) => [key, count]));
  }

  typesOf = (key: string): string | undefined => this.keys.get(key)?.types;
  countOf = (key: string): number => this.keys.get(key)?.count ?? 0;

  /** A key as stored, in the order keys were first seen (sketch-codec.ts). */
  restoreKey(key: string, types: string, count: number): void {
    this.keys.set(key, { types, count, counted: !UNCOUNTED_VALUES.has(key), counter: undefined });
    this.keyNames.push(key);
  }

  /** A key's value counter as stored (the key restored first). */
  restoreCounter(key: string, counter: LossyCounter): void {
    const stats = this.keys.get(key);
    if (!stats) return;
    stats.counter = counter;
    this.values.set(key, counter);
  }

  /** No value counters any more (what gives way last when a sketch outgrows its stored size). */
  dropCounters(): void {
    for (const stats of this.keys.values()) stats.counter = undefined;
    this.values.clear();
  }

  countTopLevel(key: string): void {
    const seen = this.topLevel.get(key);
    if (seen !== undefined) this.topLevel.set(key, seen + 1);
    else if (this.topLevel.size < LIMITS.topLevelFields && key.length <= MAX_PATH_CHARS) {
      this.topLevel.set(key, 1);
      this.topLevelNames.push(key);
    }
  }

  addArray(path: string): void {
    if (this.arrays.size < LIMITS.keysPerModel) this.arrays.add(path);
  }

  addNull(path: string): void {
    if (this.nullable.size < LIMITS.keysPerModel) this.nullable.add(path);
  }

  /** An event that took sample slot `slot` (a journal's record of what observe() decided). */
  placeSample(slot: number, event: Record<string, unknown>): void {
    if (slot < this.samples.length) this.samples[slot] = event;
    else if (this.samples.length < SAMPLE_SIZE) this.samples.push(event);
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
    return sortedObject([...this.keys].map(([key, { types }]) => [key, types]));
  }

  keyCountsView(): Record<string, number> {
    return sortedObject([...this.keys].map(([key, { count }]) => [key, count]));
  }

  /** Per counted key, how many distinct values it had (LossyCounter.distinct), in key order. */
  distinctValues(): Record<string, DistinctValues> {
    return sortedObject(
      [...this.values].map(([key, counter]) => {
        const { count, exact, of } = counter.distinct();
        return [key, { Count: count, Exact: exact, Of: of }];
      }),
    );
  }

  metadata(): Metadata {
    const frequent: [string, FrequentValue[]][] = [];
    for (const [key, counter] of this.values) {
      const values = counter.frequent();
      if (values.length > 0) frequent.push([key, values]);
    }
    return { SampledEvents: this.samples, TotalCount: this.total, FrequentValues: sortedObject(frequent) };
  }
}
