import * as format from './bjson-format';

// The scan of a result QuickJS encoded (layout in bjson.ts), before the engine trusts it as the result's JSON.

// Read once into local constants: imported bindings can compile to property getters, too slow here.
const { BAIL, BJSON_VERSION, TAG_ARRAY, TAG_FALSE, TAG_FLOAT64, TAG_INT32, TAG_NULL, TAG_OBJECT, TAG_STRING, TAG_TRUE, TAG_UNDEFINED } = format;

/** UTF-8 bytes each latin-1 character takes inside a JSON string. */
const LATIN1_JSON_BYTES = new Uint8Array(256).map((_, c) => {
  if (c === 0x22 || c === 0x5c) return 2;
  // \b \t \n \f \r have short escapes, other control characters are \u00XX
  if (c < 0x20) return c >= 8 && c <= 13 && c !== 11 ? 2 : 6;
  return c < 0x80 ? 1 : 2;
});

/** UTF-8 length of `JSON.stringify` of a string, from its latin-1 bytes or UTF-16LE units in `buf`. */
function quotedLength(buf: Uint8Array, start: number, end: number, wide: boolean): number {
  let n = 2;
  if (!wide) {
    for (let i = start; i < end; i++) n += LATIN1_JSON_BYTES[buf[i]!]!;
    return n;
  }
  for (let i = start; i < end; i += 2) {
    const c = buf[i]! | (buf[i + 1]! << 8);
    if (c < 0x100) n += LATIN1_JSON_BYTES[c]!;
    else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c > 0xdfff) n += 3;
    else if (c < 0xdc00 && i + 3 < end && (buf[i + 3]! & 0xfc) === 0xdc) {
      n += 4;
      i += 2;
    } else n += 6; // a lone surrogate is written as \uXXXX
  }
  return n;
}

function decimalLength(v: number): number {
  const a = v < 0 ? -v : v;
  const digits = a < 10 ? 1 : a < 100 ? 2 : a < 1e3 ? 3 : a < 1e4 ? 4 : a < 1e5 ? 5 : a < 1e6 ? 6 : a < 1e7 ? 7 : a < 1e8 ? 8 : a < 1e9 ? 9 : 10;
  return v < 0 ? digits + 1 : digits;
}

/**
 * What the engine needs to know about a value QuickJS encoded, before it trusts the binary form as the
 * value's JSON: its exact JSON size, and where its objects are, so the guest can check them.
 */
export interface JsonScan {
  /** UTF-8 length of the value's JSON text. */
  jsonBytes: number;
  /**
   * Pre-order walk over the objects and arrays: for each, the number of children that are objects or
   * arrays, then each child's key followed by the child's own entries. A key is an integer key (array
   * index) when >= 0, else `~index` into `keys`.
   */
  program: Int32Array;
  keys: string[];
}

class Scanner {
  pos = 0;
  readonly end: number;
  program: Int32Array;
  size = 0;
  /** JSON length of each atom as a quoted key. */
  readonly keyLengths: number[] = [];
  readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly maxDepth: number,
  ) {
    this.end = bytes.length;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.program = new Int32Array(Math.max(256, bytes.length >>> 4));
  }

  emit(v: number): void {
    if (this.size === this.program.length) {
      const grown = new Int32Array(this.size * 2);
      grown.set(this.program);
      this.program = grown;
    }
    this.program[this.size++] = v;
  }

  leb(): number {
    const { bytes, end } = this;
    const p = this.pos;
    const first = bytes[p]!;
    if (first < 0x80 && p < end) {
      this.pos = p + 1;
      return first;
    }
    // Two bytes (lengths and key indexes up to 16383) without the loop.
    if (p + 1 < end && bytes[p + 1]! < 0x80) {
      this.pos = p + 2;
      return (first & 0x7f) + bytes[p + 1]! * 0x80;
    }
    let v = 0;
    for (let scale = 1; scale <= 0x10000000; scale *= 0x80) {
      if (this.pos >= end) break;
      const b = bytes[this.pos++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
    }
    throw BAIL;
  }

  /** A one-byte leb128, the common case, without a call. */
  small(): number {
    const b = this.bytes[this.pos]!;
    if (b < 0x80 && this.pos < this.end) {
      this.pos++;
      return b;
    }
    return this.leb();
  }

  /** Reads a string; returns its JSON length. */
  stringLength(): number {
    const header = this.small();
    const wide = header % 2 === 1;
    const start = this.pos;
    const stop = start + (wide ? header - 1 : header / 2);
    if (stop > this.end) throw BAIL;
    this.pos = stop;
    return quotedLength(this.bytes, start, stop, wide);
  }

  /** Reads a value; returns its JSON length. */
  value(depth: number): number {
    if (this.pos >= this.end) throw BAIL;
    switch (this.bytes[this.pos++]) {
      case TAG_NULL:
      case TAG_TRUE:
        return 4;
      case TAG_FALSE:
        return 5;
      case TAG_INT32: {
        const z = this.small();
        return decimalLength(z % 2 ? -(z + 1) / 2 : z / 2);
      }
      case TAG_FLOAT64: {
        if (this.pos + 8 > this.end) throw BAIL;
        const v = this.view.getFloat64(this.pos, true);
        this.pos += 8;
        return Number.isFinite(v) ? String(v).length : 4;
      }
      case TAG_STRING:
        return this.stringLength();
      case TAG_ARRAY:
        return this.array(depth);
      case TAG_OBJECT:
        return this.object(depth);
      default:
        throw BAIL;
    }
  }

  array(depth: number): number {
    if (depth >= this.maxDepth) throw BAIL;
    const n = this.small();
    // Longer arrays would not fit the program's integers; they are rare enough to go as text.
    if (n > this.end - this.pos || n > 0x7fffffff) throw BAIL;
    const { bytes } = this;
    const at = this.size;
    this.emit(0);
    let children = 0;
    let length = n > 0 ? n + 1 : 2;
    for (let i = 0; i < n; i++) {
      const tag = bytes[this.pos];
      if (tag === TAG_UNDEFINED) {
        this.pos++;
        length += 4;
        continue;
      }
      if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
        this.emit(i);
        children++;
      }
      length += this.value(depth + 1);
    }
    this.program[at] = children;
    return length;
  }

  object(depth: number): number {
    if (depth >= this.maxDepth) throw BAIL;
    const n = this.small();
    if (n > this.end - this.pos) throw BAIL;
    const { bytes, keyLengths } = this;
    const at = this.size;
    this.emit(0);
    let children = 0;
    let count = 0;
    let length = 2;
    for (let i = 0; i < n; i++) {
      const code = this.small();
      let keyLength: number;
      if (code % 2 === 1) keyLength = decimalLength((code - 1) / 2) + 2;
      else {
        const index = code / 2 - 1;
        if (index < 0 || index >= keyLengths.length) throw BAIL;
        keyLength = keyLengths[index]!;
      }
      const tag = bytes[this.pos];
      if (tag === TAG_UNDEFINED) {
        this.pos++;
        continue;
      }
      if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
        this.emit(code % 2 === 1 ? (code - 1) / 2 : ~(code / 2 - 1));
        children++;
      }
      length += keyLength + 1 + this.value(depth + 1);
      count++;
    }
    this.program[at] = children;
    return length + (count > 1 ? count - 1 : 0);
  }
}

/**
 * Reads a value QuickJS encoded and checks that it holds only what JSON text can say exactly (objects,
 * arrays, strings, numbers, booleans, null, undefined); anything else (dates, boxed values, BigInt,
 * typed arrays, shared or circular references), a newer format or nesting deeper than `maxDepth` gives
 * undefined. It does not look at prototypes or toJSON: the guest checks those with the program.
 */
export function scanEncodedJson(bytes: Uint8Array, maxDepth: number): JsonScan | undefined {
  const scanner = new Scanner(bytes, maxDepth);
  const keys: string[] = [];
  try {
    if (scanner.end < 2 || bytes[scanner.pos++] !== BJSON_VERSION) return undefined;
    const atomCount = scanner.leb();
    if (atomCount > scanner.end) return undefined;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < atomCount; i++) {
      const header = scanner.leb();
      const wide = header % 2 === 1;
      const start = scanner.pos;
      const stop = start + (wide ? header - 1 : header / 2);
      if (stop > scanner.end) return undefined;
      keys.push(text.toString(wide ? 'utf16le' : 'latin1', start, stop));
      scanner.keyLengths.push(quotedLength(bytes, start, stop, wide));
      scanner.pos = stop;
    }
    const jsonBytes = scanner.value(0);
    if (scanner.pos !== scanner.end) return undefined;
    return { jsonBytes, program: scanner.program.subarray(0, scanner.size), keys };
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  }
}
