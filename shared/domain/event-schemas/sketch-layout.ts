import { randomInt } from 'node:crypto';
import { compress, decompress } from './binary';
import { EntryBuilder, replay } from './journal';
import type { SketchBase, SketchHead, SketchWrite, StoredSketch } from './records';
import { Sketch } from './sketch';

/**
 * How a sketch is stored so that a capture writes little. DynamoDB bills a write by the size of the whole
 * item, and a sketch (candidate values above all) is kilobytes that change a little at a time; so:
 *
 * - the head (small, rewritten by every capture under a revision check) names the base the sketch starts
 *   from and holds the journal: the entries of the captures since, each a few hundred bytes;
 * - a base holds the whole sketch, a snapshot, written when the journal would grow past what a fold costs
 *   (journalBytes), or when one capture brings more events than an entry is worth. The snapshot goes to
 *   the one of two base slots the head does not name, then the head naming it (with an empty journal)
 *   under the head's revision check.
 *
 * Bases carry the revision they were written at and their sketch's token (its life: a model or version
 * evicted and created again has a new one). A base is written only over one of an older revision or
 * another life, so no writer, however late, writes over the slot a head names. Whichever writes are lost or
 * race, the head and the base it names make the sketch, and the head's revision check alone keeps
 * concurrent consumers from losing a count. A base whose head was never written is written over by the
 * next fold, once a head has moved past its revision.
 */
export const LAYOUT = {
  /** A head's journal may always grow to this (compressed); past it, see OpenSketch.journalBytes. */
  headBytes: 1800,
  /** …and never past this. */
  maxHeadBytes: 16 * 1024,
  /** Captures bringing more events fold at once (their entry would weigh as much as a snapshot). */
  journalEvents: 64,
} as const;

const HEAD = 0x48; // 'H'
const NO_BASE = 2;

interface Entry {
  rev: number;
  raw: Uint8Array;
}

/**
 * The head's body: which slot (and tag) the sketch starts from, at which revision, that base's size, and the
 * entries since.
 */
interface Body {
  slot: number;
  tag: number;
  from: number;
  size: number;
  entries: Entry[];
}

function writeBody({ slot, tag, from, size, entries }: Body): Buffer {
  const journal: Buffer[] = [];
  for (const { rev, raw } of entries) journal.push(Buffer.from(varints([rev, raw.length])), Buffer.from(raw.buffer, raw.byteOffset, raw.length));
  const packed = journal.length > 0 ? compress(Buffer.concat(journal)) : Buffer.alloc(0);
  return Buffer.concat([Buffer.of(HEAD), varints([slot, tag, from, size]), packed]);
}

function readBody(data: Uint8Array): Body {
  if (data[0] !== HEAD) throw new Error('not a sketch head');
  let offset = 1;
  const next = (bytes: Uint8Array) => {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      if (offset >= bytes.length) throw new Error('truncated sketch head');
      const byte = bytes[offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  };
  const [slot, tag, from, size] = [next(data), next(data), next(data), next(data)];
  const entries: Entry[] = [];
  if (offset < data.length) {
    const journal = decompress(data.subarray(offset));
    offset = 0;
    while (offset < journal.length) {
      const rev = next(journal);
      const length = next(journal);
      entries.push({ rev, raw: journal.subarray(offset, offset + length) });
      offset += length;
    }
  }
  return { slot, tag, from, size, entries };
}

function varints(values: number[]): Uint8Array {
  const out: number[] = [];
  for (let v of values) {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  }
  return Uint8Array.from(out);
}

/** What a new model or version's head is marked with (SketchHead.token). */
export const newToken = (): number => randomInt(1, 2 ** 47);

/** The records a version's model holds, as of its revision `rev`: a version's own list leaves them out. */
export interface ModelRecords {
  applied: ReadonlySet<number>;
  rev: number;
}

/** A sketch as read, with what its next write starts from. */
export class OpenSketch {
  private constructor(
    /** The head as read (a fold that must wait writes it back at the next revision). */
    private readonly read: SketchHead,
    readonly rev: number,
    readonly sketch: Sketch,
    private readonly body: Body,
    /** Names the sketch's life: its bases carry it. */
    private readonly token: number,
    /** The revision each base slot was written at, when it is of this life. */
    private readonly slots: (number | undefined)[],
    /** The size of the head's body as read. */
    private readonly bodyBytes = 0,
  ) {}

  /** What the last write() or fold() would leave: the sketch as it will be read once the write is made. */
  private after?: OpenSketch;

  /**
   * The sketch of a head and its two base slots read together; undefined when they do not make one (the
   * slot was read after a later fold wrote over it): read them again.
   */
  static of(head: SketchHead | undefined, bases: (SketchBase | undefined)[] = []): OpenSketch | undefined {
    // No head yet: no life either (0).
    const token = head?.token ?? 0;
    const slots = [0, 1].map((slot) => (bases[slot]?.token === token ? bases[slot]?.rev : undefined));
    if (!head) return new OpenSketch({ rev: 0 }, 0, new Sketch(), { slot: NO_BASE, tag: 0, from: 0, size: 0, entries: [] }, token, slots);
    if (!head.body) return new OpenSketch(head, head.rev, new Sketch(), { slot: NO_BASE, tag: 0, from: 0, size: 0, entries: [] }, token, slots);
    const body = readBody(head.body);
    let sketch: Sketch;
    if (body.slot === NO_BASE) sketch = new Sketch();
    else {
      const base = bases[body.slot];
      if (base?.tag !== body.tag) return undefined;
      sketch = Sketch.decode(base.data);
    }
    for (const entry of body.entries) replay(entry.raw, sketch);
    return new OpenSketch(head, head.rev, sketch, body, token, slots, head.body.length);
  }

  /** True when the sketch has entries not yet folded into a snapshot (they hold recent events' values). */
  get hasJournal(): boolean {
    return this.body.entries.length > 0;
  }

  /** Starts this capture's journal entry: observe through it. */
  entry(): EntryBuilder {
    return new EntryBuilder(this.sketch);
  }

  /**
   * What to write for the observations made through `entry` (of records `digests`, marked applied here):
   * the head at the next revision, after a base when the journal is folded into one (a version's leaving
   * out the records of `model`).
   */
  write(entry: EntryBuilder, digests: number[], model?: ModelRecords): SketchWrite {
    const rev = this.rev + 1;
    const raw = entry.size <= LAYOUT.journalEvents ? entry.finish(rev, digests) : undefined;
    digests.forEach((digest) => this.sketch.markApplied(digest));
    if (raw && !this.clearlyTooLong(raw)) {
      const body = { ...this.body, entries: [...this.body.entries, { rev, raw }] };
      const appended = writeBody(body);
      if (appended.length <= this.journalBytes(appended.length - this.bodyBytes)) {
        return this.written({ head: this.head(rev, appended) }, body, this.slots);
      }
    }
    return this.fold(model);
  }

  /**
   * Whether the journal with `raw` would be well past journalBytes, by the rate the entries before it
   * compressed at (half when there are none): then it is folded without being compressed first to be sure.
   */
  private clearlyTooLong(raw: Uint8Array): boolean {
    const before = this.body.entries.reduce((sum, entry) => sum + entry.raw.length, 0);
    const entry = raw.length * (before > 0 ? this.bodyBytes / before : 0.5);
    return this.bodyBytes + entry > 1.5 * this.journalBytes(entry);
  }

  /**
   * How long a journal may grow before it is folded. A journal growing by `entry` bytes a capture costs
   * about k·entry/2 a capture over k captures, the fold a snapshot once: k = √(2·snapshot/entry) balances
   * them, so the journal is folded past √(2·snapshot·entry) (never before LAYOUT.headBytes).
   */
  private journalBytes(entry: number): number {
    return Math.min(LAYOUT.maxHeadBytes, Math.max(LAYOUT.headBytes, Math.sqrt(2 * this.body.size * entry)));
  }

  /**
   * The sketch as it now is, stored whole at the next revision: a base in the slot the head does not name,
   * and a head naming it. Also how a forgotten user leaves a sketch (then the slot it left is deleted).
   */
  fold(model?: ModelRecords): SketchWrite {
    const rev = this.rev + 1;
    const slot = this.body.slot === 0 ? 1 : 0;
    // That slot written at this revision or later: another writer's fold, which its head may be naming by
    // now, or never will (it failed). Either way it is not to be written over: move the head past it first.
    if ((this.slots[slot] ?? -1) >= rev) return { head: { ...this.read, rev, token: this.token }, retry: true };
    if (model) this.sketch.prune(model.applied, model.rev);
    const tag = randomInt(2 ** 47);
    const base = { slot, rev, token: this.token, tag, data: this.sketch.encode() };
    const body = { slot, tag, from: rev, size: base.data.length, entries: [] };
    const slots = this.slots.map((written, i) => (i === slot ? rev : written));
    return this.written({ head: this.head(rev, writeBody(body)), base }, body, slots);
  }

  /**
   * The sketch as it is once `write` (the last this one returned) is made, without reading it back: what a
   * cache keeps (SketchCache).
   */
  get next(): OpenSketch | undefined {
    return this.after;
  }

  /** How much a cache holds in keeping this sketch: the size of its snapshot and journal, as stored. */
  get weight(): number {
    return this.body.size + this.bodyBytes;
  }

  private written(write: SketchWrite, body: Body, slots: (number | undefined)[]): SketchWrite {
    this.after = new OpenSketch(write.head, write.head.rev, this.sketch, body, this.token, slots, write.head.body!.length);
    return write;
  }

  /** The slot the head read names, with the tag it held: what a fold leaves behind. */
  get named(): { slot: number; tag: number } | undefined {
    return this.body.slot === NO_BASE ? undefined : { slot: this.body.slot, tag: this.body.tag };
  }

  private head(rev: number, body: Buffer): SketchWrite['head'] {
    const { total, firstSeen, lastSeen } = this.sketch;
    return { rev, token: this.token, total, firstSeen, lastSeen, body };
  }
}

/**
 * Sketches as this process last wrote them, kept decoded. A consumer mostly captures the same models batch
 * after batch; when the head it reads is the one it wrote (same revision, same bytes), the sketch is taken
 * from here instead of being decoded and replayed again. Bounded by the stored size of what it holds (a
 * decoded sketch takes some fifty times that in memory), least recently written first out.
 */
export class SketchCache {
  private readonly entries = new Map<string, { head: SketchHead; open: OpenSketch }>();
  private weight = 0;

  constructor(private readonly budget = 1024 * 1024) {}

  /** The sketch `head` is, if it is the head last kept for `key`; taken out, as the caller will change it. */
  take(key: string, head: SketchHead | undefined): OpenSketch | undefined {
    const kept = this.entries.get(key);
    if (!kept) return undefined;
    this.drop(key);
    const same = head !== undefined && kept.head.rev === head.rev && head.body !== undefined && Buffer.compare(kept.head.body!, head.body) === 0;
    return same ? kept.open : undefined;
  }

  /** Keeps the sketch `write` leaves (after it was made). */
  keep(key: string, open: OpenSketch, write: SketchWrite): void {
    const next = open.next;
    if (!next || write.retry || next.weight > this.budget / 4) return;
    this.drop(key);
    this.entries.set(key, { head: write.head, open: next });
    this.weight += next.weight;
    for (const [oldest, { open: out }] of this.entries) {
      if (this.weight <= this.budget) break;
      this.entries.delete(oldest);
      this.weight -= out.weight;
    }
  }

  private drop(key: string): void {
    const kept = this.entries.get(key);
    if (!kept) return;
    this.entries.delete(key);
    this.weight -= kept.open.weight;
  }
}

/**
 * The sketch of a model or version as the API reads it: read again, consistently, when the head and its
 * base were read apart (a capture folded between the reads).
 */
export async function readSketch(read: (consistent: boolean) => Promise<StoredSketch>): Promise<Sketch> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { head, bases } = await read(attempt > 0);
    const open = OpenSketch.of(head, bases);
    if (open) return open.sketch;
  }
  throw new Error('the sketch could not be read: its head names a base that is not there');
}
