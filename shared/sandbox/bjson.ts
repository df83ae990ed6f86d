/**
 * Host-side codec for QuickJS's binary object format (JS_WriteObject / JS_ReadObject, as exposed by
 * quickjs-emscripten's encodeBinaryJSON / decodeBinaryJSON), restricted to plain JSON data.
 *
 * The format is specific to the pinned QuickJS build (bellard 2025-09-13, BC_VERSION 5). The engine
 * checks at start-up that the build still reads and writes what these files expect, and falls back to
 * JSON text otherwise (see `BINARY_PROBE` in engine.ts). Tags are in bjson-format.ts; the encoder, the
 * decoder and the scan of results in bjson-encode.ts, bjson-decode.ts and bjson-scan.ts.
 *
 * Layout: u8 version, leb128 atom count, the atoms as strings, then one value. A string is
 * leb128(length << 1 | wide) followed by latin-1 bytes or UTF-16LE units. A property key is
 * leb128(n << 1 | 1) for an integer atom n, or leb128((index + 1) << 1) into the atom table.
 * Integers are zigzag leb128 (INT32), other numbers 8 bytes little-endian (FLOAT64).
 */

export { BJSON_VERSION, NotPlain } from './bjson-format';
export { encodePlainJson } from './bjson-encode';
export { decodePlainJson, readOutcome } from './bjson-decode';
export { scanEncodedJson } from './bjson-scan';
export type { JsonScan } from './bjson-scan';
