import { ByteReader, ByteWriter } from './binary';
import { typeName, valueText, type FlatEvent, type TypeName } from './flatten';
import { LIMITS, UNCOUNTED_VALUES, type Sketch } from './sketch';

/**
 * A journal entry: the observations one capture added to a sketch, in a form replayed exactly by the same
 * Sketch methods observe() uses (what each event brought, and which sample slot it took). Keys and top-level
 * fields the sketch knew before the entry are named by position (their order never changes); others are
 * spelled out once per entry. A stored snapshot plus the entries after it is the sketch (sketch-layout.ts).
 */
const TYPE_CODE: Record<TypeName, number> = { string: 0, float64: 1, bool: 2 };
const TYPES: TypeName[] = ['string', 'float64', 'bool'];
/** How a name is given: by position in the sketch, by position among this entry's names, or spelled out. */
const KNOWN = 0;
const LOCAL = 1;
const SPELLED = 2;

interface Pending {
  event: Record<string, unknown>;
  flat: FlatEvent;
  slot: number;
}

/** Collects what observe() did for each event of one capture, then writes the entry. */
export class EntryBuilder {
  private readonly keysBefore: number;
  private readonly topLevelBefore: number;
  private readonly pending: Pending[] = [];
  private minAt?: string;
  private maxAt?: string;

  constructor(private readonly sketch: Sketch) {
    this.keysBefore = sketch.keyNames.length;
    this.topLevelBefore = sketch.topLevelNames.length;
  }

  /** Observes the event in the sketch and notes it for the entry. */
  observe(event: Record<string, unknown>, flat: FlatEvent, at: string): void {
    const slot = this.sketch.observe(event, flat, at);
    this.pending.push({ event, flat, slot });
    if (this.minAt === undefined || at < this.minAt) this.minAt = at;
    if (this.maxAt === undefined || at > this.maxAt) this.maxAt = at;
  }

  get size(): number {
    return this.pending.length;
  }

  finish(rev: number, digests: number[]): Buffer {
    const w = new ByteWriter();
    w.uint(rev);
    w.uint(digests.length);
    for (const digest of digests) w.uint48(digest);
    w.uint(this.pending.length);
    w.string(this.minAt ?? '');
    w.string(this.maxAt ?? '');
    w.uint(this.keysBefore);
    w.uint(this.topLevelBefore);
    const keys = positions(this.sketch.keyNames, this.keysBefore);
    const topLevel = positions(this.sketch.topLevelNames, this.topLevelBefore);
    const local = new Map<string, number>();
    const name = (text: string, known: Map<string, number> | undefined, tail: number, base: number) => {
      const at = known?.get(text);
      if (at !== undefined) return w.uint((at * 3 + KNOWN) * base + tail);
      const own = local.get(text);
      if (own !== undefined) return w.uint((own * 3 + LOCAL) * base + tail);
      local.set(text, local.size);
      w.uint(SPELLED * base + tail);
      w.string(text);
    };
    const samples: [number, Record<string, unknown>][] = [];
    for (const { event, flat, slot } of this.pending) {
      w.uint(flat.leaves.size);
      for (const [key, value] of flat.leaves) {
        name(key, keys, TYPE_CODE[typeName(value)], 3);
        if (!UNCOUNTED_VALUES.has(key)) w.string(valueText(value).slice(0, LIMITS.valueChars));
      }
      const fields = Object.keys(event);
      w.uint(fields.length);
      for (const field of fields) name(field, topLevel, 0, 1);
      for (const paths of [flat.arrays, flat.nulls]) {
        w.uint(paths.length);
        for (const path of paths) name(path, undefined, 0, 1);
      }
      if (slot >= 0) samples.push([slot, event]);
    }
    w.uint(samples.length);
    for (const [slot, event] of samples) {
      w.uint(slot);
      w.string(JSON.stringify(event));
    }
    return w.finish();
  }
}

const positions = (names: string[], count: number) => new Map(names.slice(0, count).map((key, i) => [key, i]));

/** Applies an entry to the sketch it was written against (the sketch as of the revision before it). */
export function replay(entry: Uint8Array, sketch: Sketch): void {
  const r = new ByteReader(entry);
  r.uint(); // its revision: the head keeps it beside the entry
  const digests = Array.from({ length: r.uint() }, () => r.uint48());
  const events = r.uint();
  const [minAt, maxAt] = [r.string(), r.string()];
  if (r.uint() !== sketch.keyNames.length || r.uint() !== sketch.topLevelNames.length) {
    throw new Error('a journal entry does not follow the sketch it is replayed on');
  }
  const local: string[] = [];
  const name = (code: number, known: string[]): string => {
    const how = code % 3;
    const at = Math.floor(code / 3);
    if (how === SPELLED) {
      const text = r.string();
      local.push(text);
      return text;
    }
    const text = how === KNOWN ? known[at] : local[at];
    if (text === undefined) throw new Error('a journal entry names what it does not hold');
    return text;
  };
  for (let i = 0; i < events; i++) {
    sketch.total++;
    for (let n = r.uint(); n > 0; n--) {
      const code = r.uint();
      const key = name(Math.floor(code / 3), sketch.keyNames);
      sketch.countLeaf(key, TYPES[code % 3]!, UNCOUNTED_VALUES.has(key) ? undefined : r.string());
    }
    for (let n = r.uint(); n > 0; n--) sketch.countTopLevel(name(r.uint(), sketch.topLevelNames));
    for (let n = r.uint(); n > 0; n--) sketch.addArray(name(r.uint(), []));
    for (let n = r.uint(); n > 0; n--) sketch.addNull(name(r.uint(), []));
  }
  if (events > 0) {
    sketch.widen(minAt);
    sketch.widen(maxAt);
  }
  for (let n = r.uint(); n > 0; n--) {
    const slot = r.uint();
    sketch.placeSample(slot, JSON.parse(r.string()) as Record<string, unknown>);
  }
  digests.forEach((digest) => sketch.markApplied(digest));
}
