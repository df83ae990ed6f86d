import * as format from './bjson-format';

// The host's decoder of plain JSON data in QuickJS's binary object format (layout in bjson.ts).

// Read once into local constants: imported bindings can compile to property getters, too slow here.
const { BJSON_VERSION, MAX_ENCODE_DEPTH, NOT_PLAIN, TAG_ARRAY, TAG_FALSE, TAG_FLOAT64, TAG_INT32, TAG_NULL, TAG_OBJECT, TAG_STRING, TAG_TRUE, TAG_UNDEFINED } =
  format;

/** Buffer's native string makers, which `toString` calls after checking its arguments. */
interface NativeSlices {
  latin1Slice(start: number, end: number): string;
  ucs2Slice(start: number, end: number): string;
}

/** Latin-1 strings shorter than this are assembled here: cheaper than a call into native code. */
const SHORT_STRING = 13;

const fromCharCode = String.fromCharCode;
const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);

/** A latin-1 string of fewer than SHORT_STRING bytes, made in one call (no intermediate strings). */
function shortLatin1(b: Buffer, p: number, n: number): string {
  switch (n) {
    case 0:
      return '';
    case 1:
      return fromCharCode(b[p]!);
    case 2:
      return fromCharCode(b[p]!, b[p + 1]!);
    case 3:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!);
    case 4:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!);
    case 5:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!);
    case 6:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!);
    case 7:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!);
    case 8:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!);
    default:
      return fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!) + shortLatin1(b, p + 8, n - 8);
  }
}

class Reader {
  pos = 0;
  readonly end: number;
  readonly slices: NativeSlices;
  atoms: string[] = [];
  /** Per atom: whether it is `__proto__`, which a plain assignment would not create as a property. */
  protoKey: boolean[] = [];

  constructor(
    readonly buf: Buffer,
    readonly maxDepth: number,
  ) {
    this.end = buf.length;
    this.slices = buf as unknown as NativeSlices;
  }

  leb(): number {
    const { buf, end } = this;
    const p = this.pos;
    const first = buf[p]!;
    if (first < 0x80 && p < end) {
      this.pos = p + 1;
      return first;
    }
    // Two bytes (lengths and key indexes up to 16383) without the loop.
    if (p + 1 < end && buf[p + 1]! < 0x80) {
      this.pos = p + 2;
      return (first & 0x7f) + buf[p + 1]! * 0x80;
    }
    let v = 0;
    for (let scale = 1; scale <= 0x10000000; scale *= 0x80) {
      if (this.pos >= end) break;
      const b = buf[this.pos++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
    }
    throw NOT_PLAIN;
  }

  string(): string {
    const { buf } = this;
    const first = buf[this.pos]!;
    let header: number;
    if (first < 0x80 && this.pos < this.end) {
      header = first;
      this.pos++;
    } else header = this.leb();
    const units = Math.floor(header / 2);
    const start = this.pos;
    if (header % 2) {
      const stop = start + units * 2;
      if (stop > this.end) throw NOT_PLAIN;
      this.pos = stop;
      return this.slices.ucs2Slice(start, stop);
    }
    const stop = start + units;
    if (stop > this.end) throw NOT_PLAIN;
    this.pos = stop;
    return units < SHORT_STRING ? shortLatin1(buf, start, units) : this.slices.latin1Slice(start, stop);
  }

  value(depth: number): unknown {
    if (this.pos >= this.end || depth > this.maxDepth) throw NOT_PLAIN;
    const { buf } = this;
    switch (buf[this.pos++]) {
      case TAG_NULL:
        return null;
      case TAG_FALSE:
        return false;
      case TAG_TRUE:
        return true;
      case TAG_INT32: {
        const b = buf[this.pos]!;
        const z = b < 0x80 && this.pos < this.end ? (this.pos++, b) : this.leb();
        return z % 2 ? -(z + 1) / 2 : z / 2;
      }
      case TAG_FLOAT64: {
        const p = this.pos;
        if (p + 8 > this.end) throw NOT_PLAIN;
        for (let i = 0; i < 8; i++) floatBytes[i] = buf[p + i]!;
        this.pos = p + 8;
        const v = float[0]!;
        // JSON text has no -0, NaN or Infinity
        return Number.isFinite(v) ? v + 0 : null;
      }
      case TAG_STRING:
        return this.string();
      case TAG_ARRAY: {
        const n = this.leb();
        if (n > this.end - this.pos) throw NOT_PLAIN;
        const arr: unknown[] = [];
        for (let i = 0; i < n; i++) {
          if (buf[this.pos] === TAG_UNDEFINED) {
            this.pos++;
            arr.push(null);
          } else arr.push(this.value(depth + 1));
        }
        return arr;
      }
      case TAG_OBJECT:
        return this.object(depth);
      default:
        throw NOT_PLAIN;
    }
  }

  object(depth: number): Record<string, unknown> {
    const n = this.leb();
    if (n > this.end - this.pos) throw NOT_PLAIN;
    const { buf, atoms, protoKey } = this;
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const b = buf[this.pos]!;
      const code = b < 0x80 && this.pos < this.end ? (this.pos++, b) : this.leb();
      let key: string;
      let special = false;
      if (code & 1) key = String((code - 1) / 2);
      else {
        const index = code / 2 - 1;
        if (index < 0 || index >= atoms.length) throw NOT_PLAIN;
        key = atoms[index]!;
        special = protoKey[index]!;
      }
      if (buf[this.pos] === TAG_UNDEFINED) {
        this.pos++;
        continue;
      }
      const v = this.value(depth + 1);
      if (special) Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
      else obj[key] = v;
    }
    return obj;
  }
}

/**
 * Decodes plain JSON data written by `encodePlainJson` (or by QuickJS for the same kinds of values) as
 * `JSON.parse(JSON.stringify(value))` would see it: undefined is dropped from objects and null in
 * arrays, non-finite numbers are null and -0 is 0. Anything else, including shared references and
 * nesting deeper than `maxDepth`, throws NotPlain.
 */
export function decodePlainJson(input: Uint8Array, maxDepth = MAX_ENCODE_DEPTH): unknown {
  const reader = new Reader(Buffer.from(input.buffer, input.byteOffset, input.byteLength), maxDepth);
  if (reader.end < 2 || reader.buf[reader.pos++] !== BJSON_VERSION) throw NOT_PLAIN;
  const atomCount = reader.leb();
  if (atomCount > reader.end) throw NOT_PLAIN;
  for (let i = 0; i < atomCount; i++) {
    const atom = reader.string();
    reader.atoms.push(atom);
    reader.protoKey.push(atom === '__proto__');
  }
  const result = reader.value(0);
  if (reader.pos !== reader.end) throw NOT_PLAIN;
  return result;
}

/** Nesting the host decodes binary results to; the engine sends deeper results as JSON text. */
const MAX_RESULT_DECODE_DEPTH = 1024;

/** The value of an engine result: JSON text, or the binary form the engine checked (see JsonScan). */
export function readOutcome(output: string | Uint8Array): unknown {
  return typeof output === 'string' ? JSON.parse(output) : decodePlainJson(output, MAX_RESULT_DECODE_DEPTH);
}
