/**
 * Host-side codec for QuickJS's binary object format (JS_WriteObject / JS_ReadObject, as exposed by
 * quickjs-emscripten's encodeBinaryJSON / decodeBinaryJSON), restricted to plain JSON data.
 *
 * The format is specific to the pinned QuickJS build (bellard 2025-09-13, BC_VERSION 5). The engine
 * checks at start-up that the build still reads and writes what this file expects, and falls back to
 * JSON text otherwise (see `BJSON_PROBE`).
 *
 * Layout: u8 version, leb128 atom count, the atoms as strings, then one value. A string is
 * leb128(length << 1 | wide) followed by latin-1 bytes or UTF-16LE units. A property key is
 * leb128(n << 1 | 1) for an integer atom n, or leb128((index + 1) << 1) into the atom table.
 * Integers are zigzag leb128 (INT32), other numbers 8 bytes little-endian (FLOAT64).
 */

export const BJSON_VERSION = 5;

const TAG_NULL = 1;
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
 * Decodes plain JSON data written by `encodePlainJson` (or by QuickJS for the same kinds of values).
 * Anything else, including shared references, throws NotPlain.
 */
export function decodePlainJson(input: Uint8Array): unknown {
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
    if (pos >= end || depth > MAX_ENCODE_DEPTH) throw NOT_PLAIN;
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
        return v;
      }
      case TAG_STRING:
        return str();
      case TAG_ARRAY: {
        const n = leb();
        if (n > end - pos) throw NOT_PLAIN;
        const arr: unknown[] = [];
        for (let i = 0; i < n; i++) arr.push(value(depth + 1));
        return arr;
      }
      case TAG_OBJECT: {
        const n = leb();
        if (n > end - pos) throw NOT_PLAIN;
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const k = key();
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
