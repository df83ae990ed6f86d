import { emscriptenHeap } from './quickjs-internals';
import { WasmInstance } from './wasm-instance';

// A snapshot's copy of linear memory, and writing it back (see Snapshot in snapshots.ts).

const CHUNK_BYTES = 64 * 1024;
const ZERO_CHUNK = Buffer.alloc(CHUNK_BYTES);

/** Linear memory as it was at capture, in 64 KiB chunks up to its last non-zero byte. */
export interface SavedMemory {
  /** Per chunk: its bytes, or undefined when it was all zero (most of the stack, for one). */
  chunks: Array<Buffer | undefined>;
  /** Where the heap's end is kept (see HeapEndLocator), and where it was at capture, when known. */
  heapEnd?: { address: number; atCapture: number };
}

/** Length of `buffer` up to its last non-zero byte below `end`, rounded up to 8 bytes. */
function usedLength(buffer: ArrayBuffer, end: number): number {
  const words = new Float64Array(buffer, 0, Math.floor(end / 8));
  let at = words.length;
  // Any non-zero bit pattern compares unequal to 0 except -0; NaN compares unequal as well.
  while (at > 0 && words[at - 1] === 0 && !Object.is(words[at - 1], -0)) at--;
  return at * 8;
}

/**
 * Copies the non-zero chunks of `buffer`. With the heap's end known, the memory above it is not read:
 * nothing was ever written there, and reading untouched memory faults its pages in, which made up most
 * of the time a capture took.
 */
export function saveMemory(buffer: ArrayBuffer, heapEndAddress: number | undefined): SavedMemory {
  const memory = Buffer.from(buffer);
  let heapEnd: SavedMemory['heapEnd'];
  if (heapEndAddress !== undefined) {
    const atCapture = new DataView(buffer).getUint32(heapEndAddress, true);
    // A cheap sanity check of the address found: the chunk above the end is untouched.
    const above = memory.subarray(atCapture, Math.min(atCapture + CHUNK_BYTES, memory.length));
    if (atCapture <= memory.length && above.equals(ZERO_CHUNK.subarray(0, above.length))) heapEnd = { address: heapEndAddress, atCapture };
  }
  const used = usedLength(buffer, heapEnd ? heapEnd.atCapture : memory.length);
  const chunks: Array<Buffer | undefined> = [];
  for (let at = 0; at < used; at += CHUNK_BYTES) {
    const chunk = memory.subarray(at, Math.min(at + CHUNK_BYTES, memory.length));
    chunks.push(chunk.equals(ZERO_CHUNK.subarray(0, chunk.length)) ? undefined : Buffer.from(chunk));
  }
  return heapEnd ? { chunks, heapEnd } : { chunks };
}

/** The saved bytes as one array, zeros included; for tests and diagnostics. */
export function savedBytes(saved: SavedMemory): Uint8Array {
  const bytes = new Uint8Array(saved.chunks.length * CHUNK_BYTES);
  saved.chunks.forEach((chunk, i) => chunk && bytes.set(chunk, i * CHUNK_BYTES));
  return bytes;
}

/**
 * Makes `buffer` equal to the saved memory followed by zeros. Compares chunk by chunk and writes only
 * those that differ: an invocation changes a small part of the memory, and pages it never touched stay
 * unmapped. Nothing is written above the heap's end (the stack lies below the heap), so when that end
 * is known, the memory above it is not even read.
 */
export function writeBack(buffer: ArrayBuffer, saved: SavedMemory): void {
  const memory = Buffer.from(buffer);
  const { chunks, heapEnd } = saved;
  let limit = memory.length;
  if (heapEnd) {
    // The allocator's end only ever grows; anything else means it is not what it was taken for.
    const end = new DataView(buffer).getUint32(heapEnd.address, true);
    if (end >= heapEnd.atCapture && end <= memory.length) {
      limit = Math.min(memory.length, Math.max(chunks.length * CHUNK_BYTES, Math.ceil(end / CHUNK_BYTES) * CHUNK_BYTES));
    }
  }
  for (let at = 0, i = 0; at < limit; at += CHUNK_BYTES, i++) {
    const current = memory.subarray(at, Math.min(at + CHUNK_BYTES, memory.length));
    const original = chunks[i];
    if (original) {
      if (!current.equals(original)) original.copy(current);
    } else if (!current.equals(ZERO_CHUNK.subarray(0, current.length))) current.fill(0);
  }
}

/** Bytes at the start of linear memory searched for the heap's end (the data segment lies there). */
const SEARCH_BYTES = 1024 * 1024;
const PROBE_BYTES = 4 * 1024 * 1024;

/**
 * Finds where the C heap of this QuickJS build keeps its end (emscripten's sbrk pointer, a variable in
 * the data segment whose address the build fixes): in a throw-away instance, the one word that moves
 * past a large allocation and stays there when it is freed, confirmed by a second, larger one. Found
 * once per engine; when it is not found, restores compare the whole memory as before.
 */
export class HeapEndLocator {
  private found?: number | null;

  async address(): Promise<number | undefined> {
    this.found ??= await locateHeapEnd();
    return this.found ?? undefined;
  }
}

async function locateHeapEnd(): Promise<number | null> {
  try {
    const probe = await WasmInstance.create(64 * 1024 * 1024);
    const heap = emscriptenHeap(probe.module);
    if (!heap) return null;
    const words = () => new Uint32Array(probe.memory.buffer.slice(0, SEARCH_BYTES));
    const before = words();
    const block = heap.malloc(PROBE_BYTES);
    const during = words();
    heap.free(block);
    const after = words();
    if (!block) return null;
    const found: number[] = [];
    for (let i = 0; i < during.length; i++) {
      const end = during[i]!;
      if (end > before[i]! && end >= block + PROBE_BYTES && end <= probe.bytes && after[i] === end) found.push(i * 4);
    }
    if (found.length !== 1) return null;
    const address = found[0]!;
    const read = () => new DataView(probe.memory.buffer).getUint32(address, true);
    const second = heap.malloc(2 * PROBE_BYTES);
    const end = read();
    heap.free(second);
    return second && end >= second + 2 * PROBE_BYTES && end <= probe.bytes && read() === end ? address : null;
  } catch {
    return null;
  }
}
