/**
 * Host-side codec for QuickJS's binary object format (JS_WriteObject / JS_ReadObject, as exposed by
 * quickjs-emscripten's encodeBinaryJSON / decodeBinaryJSON), restricted to plain JSON data.
 *
 * The format is specific to the pinned QuickJS build (bellard 2025-09-13, BC_VERSION 5). The engine
 * checks at start-up that the build still reads and writes what this file expects, and falls back to
 * JSON text otherwise (see `BINARY_PROBE` in engine.ts).
 *
 * Layout: u8 version, leb128 atom count, the atoms as strings, then one value. A string is
 * leb128(length << 1 | wide) followed by latin-1 bytes or UTF-16LE units. A property key is
 * leb128(n << 1 | 1) for an integer atom n, or leb128((index + 1) << 1) into the atom table.
 * Integers are zigzag leb128 (INT32), other numbers 8 bytes little-endian (FLOAT64).
 */

export const BJSON_VERSION = 5;

const TAG_NULL = 1;
const TAG_UNDEFINED = 2;
const TAG_FALSE = 3;
const TAG_TRUE = 4;
const TAG_INT32 = 5;
const TAG_FLOAT64 = 6;
const TAG_STRING = 7;
const TAG_OBJECT = 8;
const TAG_ARRAY = 9;

/** Deeper input is sent as JSON text: the guest's parser then decides about stack limits, as before. */
const MAX_ENCODE_DEPTH = 64;

class Bail extends Error {}
const BAIL = new Bail();

class Writer {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.pos++] = v;
  }

  leb(v: number): void {
    this.reserve(5);
    const { buf } = this;
    let p = this.pos;
    v >>>= 0;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p++] = v;
    this.pos = p;
  }

  string(s: string): void {
    const n = s.length;
    this.reserve(5 + n * 2);
    const start = this.pos;
    this.leb(n * 2);
    // Most strings are short and latin-1: copy them in one pass, restart as UTF-16 on the first wide unit.
    const { buf } = this;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) {
        this.pos = start;
        this.leb(n * 2 + 1);
        this.pos += buf.write(s, this.pos, n * 2, 'utf16le');
        return;
      }
      buf[p++] = c;
    }
    this.pos = p;
  }

  float(v: number): void {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
}

/**
 * Encodes `value` exactly as `JSON.parse(JSON.stringify(value))` would see it, or returns undefined
 * when that cannot be done without JSON's own rules (toJSON, boxed primitives, class instances, BigInt,
 * cycles, very deep nesting): the caller then sends JSON text as before.
 */
export function encodePlainJson(value: unknown, sizeHint = 1024): Uint8Array | undefined {
  const body = new Writer(Math.max(64, sizeHint));
  const atoms = new Map<string, number>();
  const keyRef = (key: string): number => {
    let index = atoms.get(key);
    if (index === undefined) {
      index = atoms.size;
      atoms.set(key, index);
    }
    return (index + 1) * 2;
  };

  const put = (v: unknown, depth: number): void => {
    switch (typeof v) {
      case 'string':
        body.u8(TAG_STRING);
        body.string(v);
        return;
      case 'number':
        if (Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff) {
          body.u8(TAG_INT32);
          // zigzag; -0 becomes 0 as in JSON text
          body.leb(((v as number) << 1) ^ ((v as number) >> 31));
        } else if (Number.isFinite(v)) {
          body.u8(TAG_FLOAT64);
          body.float(v);
        } else body.u8(TAG_NULL);
        return;
      case 'boolean':
        body.u8(v ? TAG_TRUE : TAG_FALSE);
        return;
      case 'object':
        break;
      default:
        // undefined, functions and symbols are dropped from objects by the callers; bigint throws in JSON
        throw BAIL;
    }
    if (v === null) {
      body.u8(TAG_NULL);
      return;
    }
    if (depth >= MAX_ENCODE_DEPTH) throw BAIL;
    const obj = v as Record<string, unknown>;
    if (typeof obj.toJSON === 'function') throw BAIL;
    const proto: unknown = Object.getPrototypeOf(obj);
    if (Array.isArray(obj)) {
      if (proto !== Array.prototype) throw BAIL;
      const n = obj.length;
      body.u8(TAG_ARRAY);
      body.leb(n);
      for (let i = 0; i < n; i++) {
        const item: unknown = obj[i];
        const t = typeof item;
        if (item === undefined || t === 'function' || t === 'symbol') body.u8(TAG_NULL);
        else put(item, depth + 1);
      }
      return;
    }
    if (proto !== Object.prototype && proto !== null) throw BAIL;
    const keys = Object.keys(obj);
    let count = 0;
    for (const key of keys) {
      const t = typeof obj[key];
      if (t !== 'undefined' && t !== 'function' && t !== 'symbol') count++;
    }
    body.u8(TAG_OBJECT);
    body.leb(count);
    for (const key of keys) {
      const item = obj[key];
      const t = typeof item;
      if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
      body.leb(keyRef(key));
      put(item, depth + 1);
    }
  };

  try {
    put(value, 0);
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  }
  const head = new Writer(64 + atoms.size * 16);
  head.u8(BJSON_VERSION);
  head.leb(atoms.size);
  for (const key of atoms.keys()) head.string(key);
  // A standalone buffer, so it can be transferred to the worker without a copy.
  const out = new Uint8Array(head.pos + body.pos);
  out.set(head.buf.subarray(0, head.pos), 0);
  out.set(body.buf.subarray(0, body.pos), head.pos);
  return out;
}

/** The bytes are not plain JSON data in the format above. */
export class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain('not plain JSON data in the expected binary format');

/**
 * Decodes plain JSON data written by `encodePlainJson` (or by QuickJS for the same kinds of values) as
 * `JSON.parse(JSON.stringify(value))` would see it: undefined is dropped from objects and null in
 * arrays, non-finite numbers are null and -0 is 0. Anything else, including shared references and
 * nesting deeper than `maxDepth`, throws NotPlain.
 */
export function decodePlainJson(input: Uint8Array, maxDepth = MAX_ENCODE_DEPTH): unknown {
  const buf = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const end = buf.length;
  let pos = 0;

  const leb = (): number => {
    let v = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (pos >= end) break;
      const b = buf[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw NOT_PLAIN;
  };
  const str = (): string => {
    const header = leb();
    const units = Math.floor(header / 2);
    const bytes = header & 1 ? units * 2 : units;
    if (pos + bytes > end) throw NOT_PLAIN;
    const s = buf.toString(header & 1 ? 'utf16le' : 'latin1', pos, pos + bytes);
    pos += bytes;
    return s;
  };

  if (end < 2 || buf[pos++] !== BJSON_VERSION) throw NOT_PLAIN;
  const atomCount = leb();
  if (atomCount > end) throw NOT_PLAIN;
  const atoms: string[] = [];
  for (let i = 0; i < atomCount; i++) atoms.push(str());
  const key = (): string => {
    const v = leb();
    if (v & 1) return String((v - 1) / 2);
    const index = v / 2 - 1;
    if (index < 0 || index >= atomCount) throw NOT_PLAIN;
    return atoms[index]!;
  };

  const value = (depth: number): unknown => {
    if (pos >= end || depth > maxDepth) throw NOT_PLAIN;
    switch (buf[pos++]) {
      case TAG_NULL:
        return null;
      case TAG_FALSE:
        return false;
      case TAG_TRUE:
        return true;
      case TAG_INT32: {
        const z = leb();
        return z % 2 ? -(z + 1) / 2 : z / 2;
      }
      case TAG_FLOAT64: {
        if (pos + 8 > end) throw NOT_PLAIN;
        const v = buf.readDoubleLE(pos);
        pos += 8;
        // JSON text has no -0, NaN or Infinity
        return Number.isFinite(v) ? v + 0 : null;
      }
      case TAG_STRING:
        return str();
      case TAG_ARRAY: {
        const n = leb();
        if (n > end - pos) throw NOT_PLAIN;
        const arr: unknown[] = [];
        for (let i = 0; i < n; i++) {
          if (buf[pos] === TAG_UNDEFINED) {
            pos++;
            arr.push(null);
          } else arr.push(value(depth + 1));
        }
        return arr;
      }
      case TAG_OBJECT: {
        const n = leb();
        if (n > end - pos) throw NOT_PLAIN;
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const k = key();
          if (buf[pos] === TAG_UNDEFINED) {
            pos++;
            continue;
          }
          const v = value(depth + 1);
          if (k === '__proto__') Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
          else obj[k] = v;
        }
        return obj;
      }
      default:
        throw NOT_PLAIN;
    }
  };

  const result = value(0);
  if (pos !== end) throw NOT_PLAIN;
  return result;
}

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

/**
 * Reads a value QuickJS encoded and checks that it holds only what JSON text can say exactly (objects,
 * arrays, strings, numbers, booleans, null, undefined); anything else (dates, boxed values, BigInt,
 * typed arrays, shared or circular references), a newer format or nesting deeper than `maxDepth` gives
 * undefined. It does not look at prototypes or toJSON: the guest checks those with the program.
 */
export function scanEncodedJson(bytes: Uint8Array, maxDepth: number): JsonScan | undefined {
  const end = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let program = new Int32Array(256);
  let size = 0;
  const emit = (v: number): void => {
    if (size === program.length) {
      const grown = new Int32Array(size * 2);
      grown.set(program);
      program = grown;
    }
    program[size++] = v;
  };
  const leb = (): number => {
    let v = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (pos >= end) break;
      const b = bytes[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw BAIL;
  };
  const stringLength = (): number => {
    const header = leb();
    const wide = (header & 1) === 1;
    const stop = pos + (wide ? header - 1 : header / 2);
    if (stop > end) throw BAIL;
    const n = quotedLength(bytes, pos, stop, wide);
    pos = stop;
    return n;
  };

  const value = (depth: number): number => {
    if (pos >= end) throw BAIL;
    switch (bytes[pos++]) {
      case TAG_NULL:
      case TAG_TRUE:
        return 4;
      case TAG_FALSE:
        return 5;
      case TAG_INT32: {
        const z = leb();
        return decimalLength(z % 2 ? -(z + 1) / 2 : z / 2);
      }
      case TAG_FLOAT64: {
        if (pos + 8 > end) throw BAIL;
        const v = view.getFloat64(pos, true);
        pos += 8;
        return Number.isFinite(v) ? String(v).length : 4;
      }
      case TAG_STRING:
        return stringLength();
      case TAG_ARRAY: {
        if (depth >= maxDepth) throw BAIL;
        const n = leb();
        // Longer arrays would not fit the program's integers; they are rare enough to go as text.
        if (n > end - pos || n > 0x7fffffff) throw BAIL;
        const at = size;
        emit(0);
        let children = 0;
        let length = n > 0 ? n + 1 : 2;
        for (let i = 0; i < n; i++) {
          const tag = bytes[pos];
          if (tag === TAG_UNDEFINED) {
            pos++;
            length += 4;
            continue;
          }
          if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
            emit(i);
            children++;
          }
          length += value(depth + 1);
        }
        program[at] = children;
        return length;
      }
      case TAG_OBJECT: {
        if (depth >= maxDepth) throw BAIL;
        const n = leb();
        if (n > end - pos) throw BAIL;
        const at = size;
        emit(0);
        let children = 0;
        let count = 0;
        let length = 2;
        for (let i = 0; i < n; i++) {
          const code = leb();
          let keyLength: number;
          if (code & 1) keyLength = decimalLength((code - 1) / 2) + 2;
          else {
            const index = code / 2 - 1;
            if (index < 0 || index >= keyLengths.length) throw BAIL;
            keyLength = keyLengths[index]!;
          }
          const tag = bytes[pos];
          if (tag === TAG_UNDEFINED) {
            pos++;
            continue;
          }
          if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
            emit(code & 1 ? (code - 1) / 2 : ~(code / 2 - 1));
            children++;
          }
          length += keyLength + 1 + value(depth + 1);
          count++;
        }
        program[at] = children;
        return length + (count > 1 ? count - 1 : 0);
      }
      default:
        throw BAIL;
    }
  };

  const keys: string[] = [];
  const keyLengths: number[] = [];
  try {
    if (end < 2 || bytes[pos++] !== BJSON_VERSION) return undefined;
    const atomCount = leb();
    if (atomCount > end) return undefined;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < atomCount; i++) {
      const header = leb();
      const wide = (header & 1) === 1;
      const stop = pos + (wide ? header - 1 : header / 2);
      if (stop > end) return undefined;
      keys.push(text.toString(wide ? 'utf16le' : 'latin1', pos, stop));
      keyLengths.push(quotedLength(bytes, pos, stop, wide));
      pos = stop;
    }
    const jsonBytes = value(0);
    if (pos !== end) return undefined;
    return { jsonBytes, program: program.subarray(0, size), keys };
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  }
}

/** Nesting the host decodes binary results to; the engine sends deeper results as JSON text. */
const MAX_RESULT_DECODE_DEPTH = 1024;

/** The value of an engine result: JSON text, or the binary form the engine checked (see JsonScan). */
export function readOutcome(output: string | Uint8Array): unknown {
  return typeof output === 'string' ? JSON.parse(output) : decodePlainJson(output, MAX_RESULT_DECODE_DEPTH);
}
