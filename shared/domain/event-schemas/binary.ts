import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * The byte layout shared by stored sketches and journal entries: one stream of numbers (unsigned varints,
 * LEB128) and one of strings, each string's length (in UTF-16 code units) written among the numbers. All
 * strings are joined and converted once, as UTF-8 when well formed, else as UTF-16LE, so any string an
 * event can hold (a lone surrogate too) comes back exactly.
 */
const UTF8 = 0;
const UTF16 = 1;

const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

export class ByteWriter {
  private bytes = new Uint8Array(1024);
  private length = 0;
  private readonly strings: string[] = [];

  uint(value: number): void {
    if (this.length + 10 > this.bytes.length) this.grow(10);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  /** A 48-bit number in six bytes (a digest: random, so a varint would only make it longer). */
  uint48(value: number): void {
    if (this.length + 6 > this.bytes.length) this.grow(6);
    for (let i = 5, v = value; i >= 0; i--, v = Math.floor(v / 256)) this.bytes[this.length + i] = v % 256;
    this.length += 6;
  }

  string(text: string): void {
    this.uint(text.length);
    this.strings.push(text);
  }

  /** Packs both streams: [numbers' length][numbers][encoding][strings]. */
  finish(): Buffer {
    const text = this.strings.join('');
    const wellFormed = isWellFormed(text);
    const strings = Buffer.from(text, wellFormed ? 'utf8' : 'utf16le');
    const head = new ByteWriter();
    head.uint(this.length);
    const prefix = head.bytes.subarray(0, head.length);
    return Buffer.concat([prefix, this.bytes.subarray(0, this.length), Buffer.of(wellFormed ? UTF8 : UTF16), strings]);
  }

  private grow(needed: number): void {
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + needed));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
}

export class ByteReader {
  private offset: number;
  private readonly end: number;
  private readonly text: string;
  private cursor = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.offset = 0;
    this.end = Number.MAX_SAFE_INTEGER;
    const numbers = this.uint();
    const start = this.offset;
    this.end = start + numbers;
    if (this.end + 1 > bytes.length) throw new Error('truncated data');
    const encoding = bytes[this.end];
    const strings = Buffer.from(bytes.buffer, bytes.byteOffset + this.end + 1, bytes.length - this.end - 1);
    if (encoding !== UTF8 && encoding !== UTF16) throw new Error('unknown string encoding');
    this.text = strings.toString(encoding === UTF8 ? 'utf8' : 'utf16le');
  }

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.offset >= this.end || this.offset >= this.bytes.length) throw new Error('truncated data');
      const byte = this.bytes[this.offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  uint48(): number {
    if (this.offset + 6 > this.end) throw new Error('truncated data');
    let value = 0;
    for (let i = 0; i < 6; i++) value = value * 256 + this.bytes[this.offset++]!;
    return value;
  }

  string(): string {
    const length = this.uint();
    if (this.cursor + length > this.text.length) throw new Error('truncated data');
    const text = this.text.slice(this.cursor, this.cursor + length);
    this.cursor += length;
    return text;
  }

  get done(): boolean {
    return this.offset >= this.end;
  }
}

/**
 * Brotli at quality 4: on sketches a tenth smaller than deflate at its default level, at about its speed
 * (higher qualities shrink them a little more for several times the time).
 */
export const compress = (data: Uint8Array): Buffer =>
  brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
export const decompress = (data: Uint8Array): Buffer => brotliDecompressSync(data);
