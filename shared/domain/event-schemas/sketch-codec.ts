import { ByteReader, ByteWriter, compress, decompress } from './binary';
import { LossyCounter, MAX_CANDIDATES } from './lossy-counter';
import type { Sketch } from './sketch';

/**
 * The stored form of a sketch (a snapshot): a format byte, then compressed numbers and strings (binary.ts).
 * Keys are written once, and counters name their key by position; each counter's candidates are sorted,
 * numbers by value and written as differences, texts front-coded (a count of characters shared with the
 * previous one, then the rest): that is what makes lists of ids and amounts small. Candidates therefore come
 * back in value order, not arrival order, which only decides which of equally counted candidates an eviction
 * drops first.
 */
const SNAPSHOT = 0x53; // 'S'
const TYPE_CODES: Record<string, number> = { string: 1, float64: 2, bool: 3 };
const TYPE_NAMES = ['', 'string', 'float64', 'bool'];

/** Type names "string,float64" as base-4 digits (1, 2, 3), first seen lowest; 0 when a name is unknown. */
function typesCode(types: string): number {
  let code = 0;
  let scale = 1;
  for (const name of types.split(',')) {
    const digit = TYPE_CODES[name];
    if (digit === undefined) return 0;
    code += digit * scale;
    scale *= 4;
  }
  return code;
}

function typesOf(code: number): string {
  const names: string[] = [];
  for (let c = code; c > 0; c = Math.floor(c / 4)) names.push(TYPE_NAMES[c % 4] ?? '');
  return names.join(',');
}

/** Characters `value` shares with `previous` at their start, never splitting a surrogate pair. */
function sharedPrefix(previous: string, value: string): number {
  const max = Math.min(previous.length, value.length);
  let n = 0;
  while (n < max && previous.charCodeAt(n) === value.charCodeAt(n)) n++;
  if (n > 0 && n < value.length) {
    const last = value.charCodeAt(n - 1);
    if (last >= 0xd800 && last <= 0xdbff) n--;
  }
  return n;
}

/**
 * A candidate value that is a number at the end of some text ("p-104", "user-8", "12.50", "203.0.113.7"):
 * its digits before and after a point (a whole number's leading zeros stay with the text before it), so that
 * the numbers of one prefix can be sorted and written as differences. Undefined for any other value, and for
 * more than 15 digits (beyond them a number is not exact); those are written as text.
 */
function numberAtEnd(value: string): { prefix: string; number: number; fraction: number } | undefined {
  let end = value.length;
  let start = end;
  while (start > 0 && isDigitCode(value.charCodeAt(start - 1))) start--;
  if (start === end) return undefined;
  let fraction = 0;
  if (start > 1 && value.charCodeAt(start - 1) === 46 && isDigitCode(value.charCodeAt(start - 2))) {
    fraction = end - start + 1;
    end = start - 1;
    start = end;
    while (start > 0 && isDigitCode(value.charCodeAt(start - 1))) start--;
  }
  while (start < end - 1 && value.charCodeAt(start) === 48) start++;
  const digits = value.length - start - (fraction > 0 ? 1 : 0);
  if (digits > 15) return undefined;
  const number = fraction > 0 ? Number(value.slice(start, end) + value.slice(end + 1)) : Number(value.slice(start));
  return { prefix: value.slice(0, start), number, fraction };
}

/** The text numberAtEnd read: `number`'s digits, the last `fraction - 1` of them after a point (fraction 0: none). */
function numberText(number: number, fraction: number): string {
  if (fraction === 0) return String(number);
  const decimals = fraction - 1;
  const digits = String(number).padStart(decimals + 1, '0');
  return `${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals)}`;
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

interface NumberGroup {
  prefix: string;
  /** Digits after the point, plus one (0: no point). */
  fraction: number;
  members: { number: number; value: string; count: number }[];
}

/**
 * The value counters: per counter its key's position and counts, then, for all counters, columns of
 * numbers (how much of a text is shared with the previous one, the differences between numbers, counts,
 * bounds) and the texts' remaining characters, so that like goes with like.
 */
function writeCounters(w: ByteWriter, sketch: Sketch, index: Map<string, number>): void {
  const texts: string[] = [];
  const shared: number[] = [];
  const steps: number[] = [];
  const counts: number[] = [];
  const deltas: number[] = [];
  w.uint(sketch.values.size);
  for (const [key, counter] of sketch.values) {
    const plain: [string, number][] = [];
    const groups = new Map<string, NumberGroup>();
    for (const candidate of counter.candidates()) {
      const split = numberAtEnd(candidate[0]);
      if (!split) {
        plain.push(candidate);
        continue;
      }
      const name = `${split.fraction}:${split.prefix}`;
      let group = groups.get(name);
      if (!group) groups.set(name, (group = { prefix: split.prefix, fraction: split.fraction, members: [] }));
      group.members.push({ number: split.number, value: candidate[0], count: candidate[1] });
    }
    w.uint(index.get(key)!);
    w.uint(counter.observations);
    w.uint(counter.lowestDelta);
    w.uint(plain.length);
    w.uint(groups.size);
    for (const { prefix, fraction, members } of groups.values()) {
      w.string(prefix);
      w.uint(fraction);
      w.uint(members.length);
    }
    plain.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let previous = '';
    for (const [value, count] of plain) {
      const same = sharedPrefix(previous, value);
      shared.push(same);
      texts.push(same === 0 ? value : value.slice(same));
      counts.push(count);
      deltas.push(counter.deltaOf(value));
      previous = value;
    }
    for (const { members } of groups.values()) {
      members.sort((a, b) => a.number - b.number);
      let last = 0;
      for (const { number, value, count } of members) {
        steps.push(number - last);
        last = number;
        counts.push(count);
        deltas.push(counter.deltaOf(value));
      }
    }
  }
  for (const column of [shared, steps, counts, deltas]) for (const value of column) w.uint(value);
  for (const text of texts) w.string(text);
}

function readCounters(r: ByteReader, into: Sketch): void {
  const counters: { key?: string; counter: LossyCounter; plain: number; groups: { prefix: string; fraction: number; size: number }[] }[] = [];
  for (let i = r.uint(); i > 0; i--) {
    const key = into.keyNames[r.uint()];
    const counter = new LossyCounter();
    counter.restore(r.uint(), r.uint());
    const plain = r.uint();
    const groups = Array.from({ length: r.uint() }, () => ({ prefix: r.string(), fraction: r.uint(), size: r.uint() }));
    counters.push({ key, counter, plain, groups });
  }
  const column = (length: number) => Array.from({ length }, () => r.uint());
  const plain = counters.reduce((sum, c) => sum + c.plain, 0);
  const numbers = counters.reduce((sum, c) => sum + c.groups.reduce((s, g) => s + g.size, 0), 0);
  const [shared, steps, counts, deltas] = [column(plain), column(numbers), column(plain + numbers), column(plain + numbers)];
  let [t, s, c] = [0, 0, 0];
  for (const { key, counter, plain: texts, groups } of counters) {
    let previous = '';
    for (let i = 0; i < texts; i++, t++, c++) {
      const rest = r.string();
      previous = shared[t] === 0 ? rest : previous.slice(0, shared[t]) + rest;
      counter.put(previous, counts[c]!, deltas[c]!);
    }
    for (const { prefix, fraction, size } of groups) {
      let number = 0;
      for (let i = 0; i < size; i++, s++, c++) {
        number += steps[s]!;
        counter.put(prefix + numberText(number, fraction), counts[c]!, deltas[c]!);
      }
    }
    if (key !== undefined) into.restoreCounter(key, counter);
  }
}

function pack(sketch: Sketch): Buffer {
  const w = new ByteWriter();
  w.uint(sketch.total);
  w.uint((sketch.firstSeen !== undefined ? 1 : 0) | (sketch.lastSeen !== undefined ? 2 : 0));
  if (sketch.firstSeen !== undefined) w.string(sketch.firstSeen);
  if (sketch.lastSeen !== undefined) w.string(sketch.lastSeen);
  const index = new Map<string, number>();
  w.uint(sketch.keyNames.length);
  for (const key of sketch.keyNames) {
    index.set(key, index.size);
    w.string(key);
    const types = sketch.typesOf(key) ?? '';
    const code = typesCode(types);
    w.uint(code);
    if (code === 0) w.string(types);
    w.uint(sketch.countOf(key));
  }
  w.uint(sketch.topLevelNames.length);
  for (const key of sketch.topLevelNames) {
    w.string(key);
    w.uint(sketch.topLevel.get(key) ?? 0);
  }
  for (const paths of [sketch.arrays, sketch.nullable]) {
    w.uint(paths.size);
    for (const path of paths) w.string(path);
  }
  writeCounters(w, sketch, index);
  w.string(JSON.stringify(sketch.samples));
  w.uint(sketch.applied.length);
  for (const digest of sketch.applied) w.uint48(digest);
  w.uint(sketch.prunedAt);
  return Buffer.concat([Buffer.of(SNAPSHOT), compress(w.finish())]);
}

/** The snapshot of `sketch` within `budget` bytes: what gives way changes the sketch itself, as stored. */
export function writeSnapshot(sketch: Sketch, budget: number): Buffer {
  let encoded = pack(sketch);
  for (let cap = MAX_CANDIDATES / 2; encoded.length > budget && cap >= 1; cap = Math.floor(cap / 2)) {
    sketch.values.forEach((counter) => counter.limit(cap));
    encoded = pack(sketch);
  }
  while (encoded.length > budget && sketch.samples.length > 1) {
    sketch.samples.pop();
    encoded = pack(sketch);
  }
  // Last, the JSON Schema's detail (which paths were arrays or null), then the value counters: keys,
  // counts and a sample always fit.
  const lastResorts = [() => (sketch.arrays.clear(), sketch.nullable.clear()), () => sketch.dropCounters()];
  for (const giveWay of lastResorts) {
    if (encoded.length <= budget) break;
    giveWay();
    encoded = pack(sketch);
  }
  return encoded;
}

export function readSnapshot(data: Uint8Array, into: Sketch): void {
  if (data[0] !== SNAPSHOT) throw new Error('not a sketch snapshot');
  const r = new ByteReader(decompress(data.subarray(1)));
  into.total = r.uint();
  const seen = r.uint();
  if (seen & 1) into.firstSeen = r.string();
  if (seen & 2) into.lastSeen = r.string();
  for (let i = r.uint(); i > 0; i--) {
    const key = r.string();
    const code = r.uint();
    const types = code === 0 ? r.string() : typesOf(code);
    into.restoreKey(key, types, r.uint());
  }
  for (let i = r.uint(); i > 0; i--) {
    const key = r.string();
    into.topLevel.set(key, r.uint());
    into.topLevelNames.push(key);
  }
  for (let i = r.uint(); i > 0; i--) into.arrays.add(r.string());
  for (let i = r.uint(); i > 0; i--) into.nullable.add(r.string());
  readCounters(r, into);
  into.samples = JSON.parse(r.string()) as Record<string, unknown>[];
  for (let i = r.uint(); i > 0; i--) into.applied.push(r.uint48());
  into.prunedAt = r.uint();
}
