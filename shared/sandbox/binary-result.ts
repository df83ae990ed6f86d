import type { QuickJSHandle } from 'quickjs-emscripten-core';
import { encodePlainJson, scanEncodedJson } from './bjson';
import type { JsonScan } from './bjson';
import { GUEST_CHECK_SOURCE, GUEST_RUNTIME_FILENAME } from './guest-runtime';
import { takeException } from './quickjs-internals';
import type { Sandbox } from './sandbox';

// Results nested deeper than this are returned as JSON text, which the host parses without recursion.
const MAX_RESULT_DEPTH = 256;
/**
 * Encoded results smaller than this go as JSON text: below it, scanning, checking and decoding the
 * binary form cost more than the guest's JSON.stringify and the host's JSON.parse save (measured
 * crossover around 4 KB, i.e. a handful of typical events).
 */
export const BINARY_RESULT_MIN_BYTES = 4096;
/** Results with fewer rows than this go as JSON text without being encoded first (see BINARY_RESULT_MIN_BYTES). */
export const BINARY_RESULT_MIN_ROWS = 2;

/**
 * Takes the guest's result object in QuickJS's binary format when that is exactly its JSON: the
 * encoder refuses accessors, functions, symbols and exotic objects without running guest code, the
 * scan refuses values JSON would write differently, and the guest check refuses toJSON methods.
 * Whatever is refused is stringified by the guest as before, so JSON's behaviour and errors stay the
 * same. The output limit applies to the exact JSON size, before anything is copied out. Encoded
 * results under `binaryResultMinBytes` are refused at once: for them, JSON text is faster.
 */
export function takeBinaryResult(sb: Sandbox, value: QuickJSHandle, binaryResultMinBytes: number): boolean {
  const { ctx } = sb;
  try {
    const encoded = ctx.encodeBinaryJSON(value);
    const error = takeException(ctx, encoded);
    if (error) {
      error.dispose();
      return false;
    }
    try {
      const bytes = ctx.getArrayBuffer(encoded);
      try {
        if (bytes.value.byteLength < binaryResultMinBytes) return false;
        const scan = scanEncodedJson(bytes.value, MAX_RESULT_DEPTH);
        if (!scan || !checkInGuest(sb, value, scan)) return false;
        if (scan.jsonBytes > sb.limits.outputBytes) sb.resultTooLarge = true;
        else sb.binaryResult = bytes.value.slice();
        return true;
      } finally {
        bytes.dispose();
      }
    } finally {
      encoded.dispose();
    }
  } catch {
    // A host-side failure only costs the fast path.
    return false;
  }
}

/** Compiles the binary-result guard (GUEST_CHECK_SOURCE) once per sandbox; false when that failed. */
export function compileCheck(sb: Sandbox): boolean {
  if (sb.check) return true;
  const { ctx } = sb;
  const compiled = ctx.evalCode(GUEST_CHECK_SOURCE, GUEST_RUNTIME_FILENAME);
  if (compiled.error) {
    compiled.error.dispose();
    return false;
  }
  const made = compiled.value.consume((factory) => ctx.callFunction(factory, ctx.undefined, sb.intrinsics));
  if (made.error) {
    made.error.dispose();
    return false;
  }
  sb.check = made.value;
  return true;
}

function checkInGuest(sb: Sandbox, value: QuickJSHandle, scan: JsonScan): boolean {
  const { ctx } = sb;
  if (!compileCheck(sb) || !sb.check) return false;
  const keyBytes = encodePlainJson(scan.keys);
  if (!keyBytes) return false;
  const keys = ctx.newArrayBuffer(keyBytes.buffer).consume((buffer) => ctx.decodeBinaryJSON(buffer));
  const failed = takeException(ctx, keys);
  if (failed) {
    failed.dispose();
    return false;
  }
  const program = ctx.newArrayBuffer(scan.program.slice().buffer);
  const checked = ctx.callFunction(sb.check, ctx.undefined, value, program, keys);
  program.dispose();
  keys.dispose();
  if (checked.error) {
    checked.error.dispose();
    return false;
  }
  return checked.value.consume((h) => ctx.getNumber(h)) === 1;
}
