import * as format from './bjson-format';

// The host's encoder of plain JSON data into QuickJS's binary object format (layout in bjson.ts).

// Read once into local constants: imported bindings can compile to property getters, too slow here.
const { BAIL, BJSON_VERSION, MAX_ENCODE_DEPTH, TAG_ARRAY, TAG_FALSE, TAG_FLOAT64, TAG_INT32, TAG_NULL, TAG_OBJECT, TAG_STRING, TAG_TRUE } = format;

/** A scratch buffer up to this size is kept between calls, so a batch does not fault in fresh pages. */
const SCRATCH_KEEP_BYTES = 8 * 1024 * 1024;
/** Strings at least this long are checked and copied by native code rather than character by character. */
const NATIVE_STRING_MIN = 48;
const WIDE_CHAR = /[\u0100-\uffff]/;

let scratch: Buffer | undefined;

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);

class Writer {
  pos = 0;
  constructor(public buf: Buffer) {}

  /** Makes room for `n` more bytes. */
  room(n: number): Buffer {
    if (this.pos + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
    return this.buf;
  }

  leb(v: number): void {
    const buf = this.room(5);
    let p = this.pos;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p++] = v;
    this.pos = p;
  }

  /** leb128(length << 1 | wide), then latin-1 bytes or UTF-16LE units. */
  string(s: string): void {
    const n = s.length;
    const buf = this.room(5 + n * 2);
    const start = this.pos;
    if (n < 64) buf[this.pos++] = n * 2;
    else this.leb(n * 2);
    let p = this.pos;
    if (n >= NATIVE_STRING_MIN) {
      if (!WIDE_CHAR.test(s)) {
        this.pos = p + buf.write(s, p, n, 'latin1');
        return;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0xff) {
          p = -1;
          break;
        }
        buf[p + i] = c;
      }
      if (p >= 0) {
        this.pos = p + n;
        return;
      }
    }
    // Restart as UTF-16 at the first wide unit.
    this.pos = start;
    this.leb(n * 2 + 1);
    this.pos += buf.write(s, this.pos, n * 2, 'utf16le');
  }
}

/** True when `for…in` over a plain object could list inherited keys. */
function prototypeHasEnumerable(): boolean {
  for (const _key in Object.prototype) return true;
  return false;
}

class Encoder {
  readonly body: Writer;
  readonly atoms = new Map<string, number>();

  constructor(buf: Buffer) {
    this.body = new Writer(buf);
  }

  value(v: unknown, depth: number): void {
    const w = this.body;
    switch (typeof v) {
      case 'string':
        w.room(1)[w.pos++] = TAG_STRING;
        w.string(v);
        return;
      case 'number': {
        const buf = w.room(9);
        if ((v | 0) === v) {
          // zigzag; -0 becomes 0 as in JSON text
          buf[w.pos++] = TAG_INT32;
          const z = ((v << 1) ^ (v >> 31)) >>> 0;
          if (z < 0x80) buf[w.pos++] = z;
          else w.leb(z);
        } else if (Number.isFinite(v)) {
          buf[w.pos++] = TAG_FLOAT64;
          float[0] = v;
          buf.set(floatBytes, w.pos);
          w.pos += 8;
        } else buf[w.pos++] = TAG_NULL;
        return;
      }
      case 'boolean':
        w.room(1)[w.pos++] = v ? TAG_TRUE : TAG_FALSE;
        return;
      case 'object':
        if (v === null) {
          w.room(1)[w.pos++] = TAG_NULL;
          return;
        }
        if (depth >= MAX_ENCODE_DEPTH) throw BAIL;
        if (Array.isArray(v)) this.array(v, depth);
        else this.object(v as Record<string, unknown>, depth);
        return;
      default:
        // undefined, functions and symbols are dropped from objects by the callers; bigint throws in JSON
        throw BAIL;
    }
  }

  array(arr: unknown[], depth: number): void {
    if (Object.getPrototypeOf(arr) !== Array.prototype || typeof (arr as { toJSON?: unknown }).toJSON === 'function') throw BAIL;
    const w = this.body;
    const n = arr.length;
    w.room(1)[w.pos++] = TAG_ARRAY;
    w.leb(n);
    for (let i = 0; i < n; i++) {
      const item = arr[i];
      const t = typeof item;
      if (item === undefined || t === 'function' || t === 'symbol') w.room(1)[w.pos++] = TAG_NULL;
      else this.value(item, depth + 1);
    }
  }

  object(obj: Record<string, unknown>, depth: number): void {
    const proto: unknown = Object.getPrototypeOf(obj);
    if ((proto !== Object.prototype && proto !== null) || typeof obj.toJSON === 'function') throw BAIL;
    const w = this.body;
    w.room(2)[w.pos++] = TAG_OBJECT;
    // The count is written once known: one byte is kept for it, more are made when it needs them.
    const countAt = w.pos++;
    let count = 0;
    const { atoms } = this;
    const keys = Object.keys(obj);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const item = obj[key];
      const t = typeof item;
      if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
      let index = atoms.get(key);
      if (index === undefined) {
        index = atoms.size;
        atoms.set(key, index);
      }
      const ref = (index + 1) * 2;
      if (ref < 0x80) w.room(1)[w.pos++] = ref;
      else w.leb(ref);
      this.value(item, depth + 1);
      count++;
    }
    if (count < 0x80) {
      w.buf[countAt] = count;
      return;
    }
    let extra = 0;
    for (let c = count >>> 7; c > 0; c >>>= 7) extra++;
    const buf = w.room(extra);
    buf.copyWithin(countAt + 1 + extra, countAt + 1, w.pos);
    const end = w.pos + extra;
    w.pos = countAt;
    w.leb(count);
    w.pos = end;
  }
}

/**
 * Encodes `value` exactly as `JSON.parse(JSON.stringify(value))` would see it, or returns undefined
 * when that cannot be done without JSON's own rules (toJSON, boxed primitives, class instances, BigInt,
 * cycles, very deep nesting): the caller then sends JSON text as before.
 */
export function encodePlainJson(value: unknown, sizeHint = 1024): Uint8Array | undefined {
  if (prototypeHasEnumerable()) return undefined;
  let buf = scratch;
  scratch = undefined;
  if (!buf || buf.length < sizeHint) buf = Buffer.allocUnsafe(Math.max(64, Math.min(sizeHint, SCRATCH_KEEP_BYTES)));
  const encoder = new Encoder(buf);
  try {
    encoder.value(value, 0);
  } catch (err) {
    if (err !== BAIL) throw err;
    return undefined;
  } finally {
    const used = encoder.body.buf;
    if (used.length <= SCRATCH_KEEP_BYTES) scratch = used;
  }
  const { atoms, body } = encoder;
  const head = new Writer(Buffer.allocUnsafe(16 + atoms.size * 24));
  head.room(1)[head.pos++] = BJSON_VERSION;
  head.leb(atoms.size);
  for (const key of atoms.keys()) head.string(key);
  // A standalone buffer, so it can be transferred to the worker without a copy.
  const out = new Uint8Array(head.pos + body.pos);
  out.set(head.buf.subarray(0, head.pos), 0);
  out.set(body.buf.subarray(0, body.pos), head.pos);
  return out;
}
