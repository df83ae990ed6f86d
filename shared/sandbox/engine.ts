import { createHash, randomFillSync } from 'node:crypto';
import RELEASE_SYNC from '@jitl/quickjs-singlefile-cjs-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { decodePlainJson, encodePlainJson, readOutcome, scanEncodedJson } from './bjson';
import type { JsonScan } from './bjson';
import type { SandboxErrorKind } from './errors';
import { GUEST_FETCH_TIMEOUT_MS, performGuestFetch } from './guest-fetch';
import type { GuestFetchResult } from './guest-fetch';
import { GUEST_CHECK_SOURCE, GUEST_RUNTIME_FILENAME, GUEST_RUNTIME_SOURCE } from './guest-runtime';
import { DEFAULT_LIMITS, limitMessages } from './limits';
import type { SandboxLimits } from './limits';
import type { EngineCheckJob, EngineOutcome, EngineRunJob, SandboxLibrary } from './protocol';

const WASM_PAGE_BYTES = 64 * 1024;
// The prebuilt module declares a 16 MiB minimum for its imported memory.
const INITIAL_PAGES = 256;
// Linear memory never shrinks: an instance that grew past this is replaced rather than reused.
const RECYCLE_ABOVE_BYTES = 64 * 1024 * 1024;
const LIBRARY_PREFIX = 'library ';
// Normalised name for an import that matches no library; can never collide with a real module name.
const UNRESOLVED_PREFIX = '\u0000unresolved:';
// Results nested deeper than this are returned as JSON text, which the host parses without recursion.
const MAX_RESULT_DEPTH = 256;
/**
 * Encoded results smaller than this go as JSON text: below it, scanning, checking and decoding the
 * binary form cost more than the guest's JSON.stringify and the host's JSON.parse save (measured
 * crossover around 4 KB, i.e. a handful of typical events).
 */
export const BINARY_RESULT_MIN_BYTES = 4096;
/**
 * Module loading (compile + evaluate of the code and its libraries) that took at least this long on two
 * ordinary invocations in a row is worth a memory snapshot; below it, a fresh runtime is about as fast
 * as a restore and costs no memory. Twice in a row, because any code can load slowly once: in a new
 * worker, while V8 compiles the WebAssembly code paths it takes, or on a busy machine.
 */
export const SNAPSHOT_MIN_LOAD_MS = 3;
/**
 * A snapshot whose instance grew past this during an invocation is dropped rather than restored, which
 * bounds a kept snapshot to this much linear memory plus its copy (typically 6 MiB).
 */
const SNAPSHOT_MAX_INSTANCE_BYTES = 32 * 1024 * 1024;
/** Keys remembered as having loaded slowly once (bounded; the oldest is forgotten first). */
const SLOW_LOADS_KEPT = 64;
/** Snapshots kept per engine (= per worker); each holds its own instance: 16 MiB or more plus its copy. */
export const MAX_SNAPSHOTS = 4;

// The project compiles without DOM typings, so the bit of the WebAssembly API used here is declared.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
const { Memory: WasmMemoryConstructor } = (
  globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory } }
).WebAssembly;

/** A message with every kind of value and key the host encoder writes. */
const BINARY_PROBE: Record<string, unknown> = {
  messageId: 'probe',
  s: 'plain',
  e: '',
  w: 'wide \u20ac \ud83d\ude00 \ud800',
  l: '\u00e9\u00ff\u0000"\\\n',
  n: [0, -0, 1, -1, 63, 64, -65, 2147483647, -2147483648, 2147483648, 0.5, -1e-7, 1e21, 1.7976931348623157e308],
  o: { t: true, f: false, z: null, nested: { a: [[], {}, [null]] }, '7': 'index', '4294967295': 'not an index' },
};
Object.defineProperty(BINARY_PROBE, '__proto__', { value: { own: 1 }, enumerable: true, writable: true, configurable: true });

/** A guest expression for a result with every kind of value JSON writes specially. */
const BINARY_RESULT_PROBE = String.raw`{
  messageId: 'probe', s: 'plain', e: '', w: 'wide \u20ac \ud83d\ude00 \ud800 \udc00', l: '\u00e9\u00ff\u0000\u001f\u007f"\\\n\b\u2028',
  n: [0, -0, 1, -1, 63, -65, 2147483647, -2147483648, 2147483648, 0.5, -1e-7, 1e21, 5e-324, NaN, Infinity, -Infinity],
  u: undefined, h: [1, , undefined, 3], o: { z: null, t: true, f: false, 7: 'i', '4294967295': 'k', b: 'later', 2: 'j', nested: { a: [[], {}] } },
  ['__proto__']: { own: 1 }
}`;

/** Length of `buffer` up to its last non-zero byte, rounded up to 8 bytes. */
function usedLength(buffer: ArrayBuffer): number {
  const words = new Float64Array(buffer, 0, Math.floor(buffer.byteLength / 8));
  let end = words.length;
  // Any non-zero bit pattern compares unequal to 0 except -0; NaN compares unequal as well.
  while (end > 0 && words[end - 1] === 0 && !Object.is(words[end - 1], -0)) end--;
  return end * 8;
}

const RESTORE_CHUNK_BYTES = 64 * 1024;
const ZERO_CHUNK = Buffer.alloc(RESTORE_CHUNK_BYTES);

/**
 * Makes `buffer` equal to `saved` followed by zeros. Compares chunk by chunk and writes only those that
 * differ: an invocation changes a small part of the memory, and pages it never touched stay unmapped.
 */
function writeBack(buffer: ArrayBuffer, saved: Uint8Array): void {
  const memory = Buffer.from(buffer);
  const copy = Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
  for (let at = 0; at < memory.length; at += RESTORE_CHUNK_BYTES) {
    const end = Math.min(at + RESTORE_CHUNK_BYTES, memory.length);
    const current = memory.subarray(at, end);
    if (at >= copy.length) {
      if (!current.equals(ZERO_CHUNK.subarray(0, end - at))) current.fill(0);
    } else if (end <= copy.length) {
      const original = copy.subarray(at, end);
      if (!current.equals(original)) original.copy(current);
    } else {
      // The chunk where the copy ends: its first part comes back from the copy, the rest is zero.
      copy.copy(memory, at, at);
      memory.fill(0, copy.length, end);
    }
  }
}

/** One QuickJS WebAssembly instance with a hard-capped linear memory. Runtimes inside it are per invocation. */
class WasmInstance {
  /** Set when the linear memory could not grow: QuickJS is out of memory, whatever the guest does about it. */
  memoryExhausted = false;

  private constructor(
    readonly module: QuickJSWASMModule,
    readonly memory: WasmMemory,
    readonly maxBytes: number,
  ) {}

  static async create(maxBytes: number, onExhausted?: () => void): Promise<WasmInstance> {
    const memory = new WasmMemoryConstructor({ initial: INITIAL_PAGES, maximum: maxBytes / WASM_PAGE_BYTES });
    // Filled in once the module exists; grow() may already run while it is being instantiated.
    const created: { instance?: WasmInstance; exhaustedEarly?: boolean } = {};
    // Emscripten grows the heap through this object's grow(); a throw means the cap was reached.
    // Latched for the invocation (reset when one starts): a guest that catches the resulting
    // "out of memory" and retries is then interrupted at its next interrupt check.
    const grow = memory.grow.bind(memory);
    memory.grow = (delta: number): number => {
      try {
        return grow(delta);
      } catch (err) {
        const { instance } = created;
        if (!instance) created.exhaustedEarly = true;
        else if (!instance.memoryExhausted) {
          instance.memoryExhausted = true;
          onExhausted?.();
        }
        throw err;
      }
    };
    const silent = (): void => undefined;
    const module = await newQuickJSWASMModuleFromVariant(
      newVariant(RELEASE_SYNC, {
        wasmMemory: memory as never,
        // Emscripten prints aborts to stderr; failures are reported through outcomes instead.
        emscriptenModule: { print: silent, printErr: silent } as object,
      }),
    );
    const instance = new WasmInstance(module, memory, maxBytes);
    instance.memoryExhausted = created.exhaustedEarly === true;
    created.instance = instance;
    return instance;
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }
}

/**
 * A runtime + context that no invocation has touched yet, with the guest runtime script installed.
 * It is created between invocations so that the next one does not wait for it, and it serves exactly
 * one invocation.
 */
interface Sandbox {
  instance: WasmInstance;
  rt: QuickJSRuntime;
  ctx: QuickJSContext;
  /** The guest runtime's `setup(testMode, logLimit, emit)`. */
  setup: QuickJSHandle;
  /** Intrinsics the guest runtime captured for the binary-result check. */
  intrinsics: QuickJSHandle;
  /** The guard for binary results (see GUEST_CHECK_SOURCE), compiled when first needed. */
  check?: QuickJSHandle;
  /** Host function offered the result object before the guest stringifies it. */
  emit?: QuickJSHandle;
  /** The result in binary form, when the host took it that way. */
  binaryResult?: Uint8Array;
  /** The result was taken in binary form and its JSON is over the output limit. */
  resultTooLarge?: boolean;
  /** JSON.parse as it was before user code ran; builds fetch results inside the sandbox. */
  parse: QuickJSHandle;
  deadline: number;
  /** Set when the interrupt handler stopped the guest; the guest cannot hide it from the host. */
  interrupted: boolean;
  limits: SandboxLimits;
  allowlist: string;
  hostCalls: Set<QuickJSDeferredPromise>;
  abort: AbortController;
  wake?: () => void;
  /** First import specifier that matched no library. */
  unresolvedImport?: string;
  /** Host function handing the guest its binary input (`pendingInput`) when it asks for it. */
  decoder: QuickJSHandle;
  pendingInput?: Uint8Array;
  /** fetch/fetchV2 calls so far; a module whose evaluation made any is never snapshotted. */
  hostCallCount: number;
  /** Set while a snapshot's module is evaluated: fetch then fails without making a request. */
  capturing: boolean;
}

/** The JS side of quickjs-emscripten's host-function table, which guest function objects point into by id. */
interface HostRefTable {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}

/**
 * A sandbox whose runtime, context and module (with its libraries) were loaded once, in an instance of
 * its own, and whose whole linear memory was then copied. Each invocation runs on that state; afterwards
 * the copy is written back and the rest of the memory zeroed, so the next one starts from the same bytes.
 * Only module evaluation ran before the copy: no event, result, fetch or host data is in it.
 */
interface Snapshot {
  key: string;
  sandbox: Sandbox;
  /** The guest runtime's `run`, configured by `setup` before the module was evaluated. */
  run: QuickJSHandle;
  ns: QuickJSHandle;
  /** Linear memory at capture, up to its last non-zero byte; everything above it was zero. */
  memory: Uint8Array;
  /** Host-function ids the captured guest objects refer to (see HostRefTable). */
  hostRefs: HostRefTable;
  /** Address of the context's Math.random state, reseeded at every restore. */
  randomState: number;
  /** quickjs-emscripten's cached context handles at capture; a change means its JS side moved on. */
  contextCaches: unknown[];
}

interface CaptureRequest {
  key: string;
  code: string;
  name: string;
  libraries: SandboxLibrary[];
  limits: SandboxLimits;
  testMode: boolean;
  emit: boolean;
}

/** A guest exception surfaced to the host (error handle owned by the holder). */
class GuestThrow {
  constructor(readonly handle: QuickJSHandle) {}
}

/** A failure decided by the host (import resolution, limits, protocol). */
class HostFailure {
  constructor(
    readonly kind: SandboxErrorKind,
    readonly message: string,
  ) {}
}

interface ContextInternals {
  ffi: { QTS_ResolveException(ctx: number, value: number): number };
  ctx: { value: number };
  memory: { heapValueHandle(ptr: number): QuickJSHandle };
  _global?: unknown;
  _BigInt?: unknown;
  _Symbol?: unknown;
  _SymbolIterator?: unknown;
  _SymbolAsyncIterator?: unknown;
}

function contextCaches(ctx: QuickJSContext): unknown[] {
  const c = ctx as unknown as ContextInternals;
  return [c._global, c._BigInt, c._Symbol, c._SymbolIterator, c._SymbolAsyncIterator];
}

function hostRefTable(rt: QuickJSRuntime): HostRefTable | undefined {
  const table = (rt as unknown as { hostRefs?: Partial<HostRefTable> }).hostRefs;
  if (!table || typeof table.nextId !== 'number' || !Array.isArray(table.freelist) || !(table.groups instanceof Map)) {
    return undefined;
  }
  return table as HostRefTable;
}

function copyHostRefs(table: HostRefTable): HostRefTable {
  return {
    nextId: table.nextId,
    freelist: [...table.freelist],
    groups: new Map([...table.groups].map(([id, group]) => [id, new Map(group)])),
  };
}

/**
 * Identifies what a snapshot holds: the code, its name, every library (in order), the limits, the test
 * mode and whether the guest offers results in binary form. Length-prefixed UTF-16, so distinct inputs
 * never hash the same bytes; a content hash, so no workspace or tenant name is involved.
 */
export function snapshotKey(job: Pick<EngineRunJob, 'code' | 'name' | 'libraries' | 'limits' | 'testMode'>, emit: boolean): string {
  const hash = createHash('sha256');
  const part = (text: string): void => {
    hash.update(`${text.length}:`);
    hash.update(text, 'utf16le');
  };
  part(job.code);
  part(job.name);
  part(String(job.libraries.length));
  for (const lib of job.libraries) {
    part(lib.importName);
    part(lib.name);
    part(lib.code);
  }
  const { deadlineMs, memoryBytes, stackBytes, outputBytes } = job.limits;
  part([deadlineMs, memoryBytes, stackBytes, outputBytes, job.testMode ? 1 : 0, emit ? 1 : 0].join(','));
  return hash.digest('hex');
}

const MASK_64 = (1n << 64n) - 1n;

/** QuickJS's Math.random: xorshift64* on the context's state; returns the next state and the number. */
function nextRandom(state: bigint): [bigint, number] {
  let x = state;
  x ^= x >> 12n;
  x ^= (x << 25n) & MASK_64;
  x ^= x >> 27n;
  return [x, Number(((x * 0x2545f4914f6cdd1dn) & MASK_64) >> 12n) / 2 ** 52];
}

/** A fresh non-zero seed, so restored contexts do not all replay the captured Math.random sequence. */
function randomSeed(): bigint {
  const bytes = randomFillSync(new Uint8Array(8));
  const seed = new DataView(bytes.buffer).getBigUint64(0, true);
  return seed === 0n ? 1n : seed;
}

/**
 * encodeBinaryJSON/decodeBinaryJSON hand back QuickJS's exception marker instead of throwing. This
 * disposes such a handle and returns the pending exception, or returns undefined for a real value.
 */
function takeException(ctx: QuickJSContext, handle: QuickJSHandle): QuickJSHandle | undefined {
  const internals = ctx as unknown as ContextInternals;
  const errorPtr = internals.ffi.QTS_ResolveException(internals.ctx.value, handle.value as unknown as number);
  if (!errorPtr) return undefined;
  handle.dispose();
  return internals.memory.heapValueHandle(errorPtr);
}

function errorText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  const { name, message, stack } = value as { name?: unknown; message?: unknown; stack?: unknown };
  if (typeof message !== 'string' && typeof name !== 'string') {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  const head = message ? `${String(name ?? 'Error')}: ${String(message)}` : String(name ?? 'Error');
  const frames = typeof stack === 'string' ? stack.replace(/\n+$/, '') : '';
  return frames ? `${head}\n${frames}` : head;
}

/**
 * Runs user transformations in QuickJS. Every invocation gets its own fresh runtime and context; the
 * WebAssembly instance underneath is reused only while it stays small and no limit was hit. Meant to
 * run inside a worker thread, where the pool's watchdog can terminate a runaway native call.
 *
 * Code whose module took long to load is run from a memory snapshot instead (see Snapshot): after an
 * invocation that loaded it the ordinary way, the module is loaded once more in an instance of its own
 * and the memory copied; later invocations with the same key start from those bytes. A snapshot is
 * dropped after any limit hit or host-side fault, and when its instance grew too large.
 *
 * Module top-level code that reads the clock or Math.random sees the values of the capture moment, as a
 * fresh evaluation at that moment would have; Math.random is reseeded at every restore, so calls made
 * while handling events differ between invocations, as they do on the ordinary path.
 *
 * Call `tidy()` after each invocation (after its result was sent): it releases or restores the used
 * sandbox, takes a pending snapshot and prepares the next sandbox, so none of that is on a caller's clock.
 */
export class QuickJsEngine {
  /**
   * `onMemoryExhausted` is called (synchronously, from inside the guest's allocation) the first time an
   * invocation hits the memory cap, so a supervisor can stop a guest that then stalls in native code.
   * `snapshotMinLoadMs` and `maxSnapshots` default to SNAPSHOT_MIN_LOAD_MS and MAX_SNAPSHOTS
   * (`maxSnapshots: 0` turns snapshots off).
   */
  constructor(
    private readonly options: {
      onMemoryExhausted?: () => void;
      binaryResultMinBytes?: number;
      snapshotMinLoadMs?: number;
      maxSnapshots?: number;
    } = {},
  ) {
    this.binaryResultMinBytes = options.binaryResultMinBytes ?? BINARY_RESULT_MIN_BYTES;
    this.snapshotMinLoadMs = options.snapshotMinLoadMs ?? SNAPSHOT_MIN_LOAD_MS;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  }

  private binaryResultMinBytes: number;
  private readonly snapshotMinLoadMs: number;
  private readonly maxSnapshots: number;
  /** Least recently used first. */
  private readonly snapshots = new Map<string, Snapshot>();
  private pendingCapture?: CaptureRequest;
  /** Keys of code that loaded slowly once; a second slow load takes a snapshot. */
  private readonly slowLoads = new Set<string>();
  /**
   * Offset of Math.random's state inside QuickJS's context struct: found and checked once, since it is
   * fixed by the build. `null` when it could not be found; snapshots are then not used at all.
   */
  private randomStateOffset?: number | null;
  /** Whether the last run() started from a snapshot; for tests and diagnostics. */
  lastRunFromSnapshot = false;

  private instance?: WasmInstance;
  /** Cleared when this QuickJS build failed the binary-format probe; binary input is then sent as JSON text. */
  private binaryInput = true;
  /** Cleared when binary results did not read back as their JSON text; results are then JSON text. */
  private binaryOutput = true;
  private next?: Sandbox;
  private used?: { sandbox: Sandbox; healthy: boolean; snapshot?: Snapshot };

  /**
   * True when the next tidy() takes milliseconds: the instance must be replaced or a snapshot taken.
   * The worker then reports itself busy until tidy() is done.
   */
  get needsFreshInstance(): boolean {
    return (
      !this.instance ||
      (this.used !== undefined && !this.used.snapshot && !this.used.healthy) ||
      this.instance.bytes > RECYCLE_ABOVE_BYTES ||
      this.pendingCapture !== undefined
    );
  }

  /** Number of snapshots kept; for tests and diagnostics. */
  get snapshotCount(): number {
    return this.snapshots.size;
  }

  /**
   * Releases (or, for a snapshot, restores) the last invocation's sandbox, takes a pending snapshot and
   * prepares a pristine sandbox for the next invocation.
   */
  async tidy(maxBytes: number = this.instance?.maxBytes ?? DEFAULT_LIMITS.memoryBytes): Promise<void> {
    const used = this.used;
    this.used = undefined;
    if (used?.snapshot) {
      if (!(used.healthy && this.restore(used.snapshot))) this.snapshots.delete(used.snapshot.key);
    } else if (used && !(used.healthy && this.release(used.sandbox))) this.dropInstance();
    const capture = this.pendingCapture;
    this.pendingCapture = undefined;
    if (capture) await this.capture(capture);
    if (this.instance && (this.instance.bytes > RECYCLE_ABOVE_BYTES || this.instance.maxBytes !== maxBytes)) {
      this.dropInstance();
    }
    if (!this.instance) this.instance = await WasmInstance.create(maxBytes, this.options.onMemoryExhausted);
    this.next ??= this.createSandbox(this.instance);
  }

  async run(job: EngineRunJob): Promise<EngineOutcome> {
    // A used snapshot must be restored (or dropped) before it can be looked up again.
    if (this.used) await this.tidy(job.limits.memoryBytes);
    const key = this.maxSnapshots > 0 && this.randomStateOffset !== null ? snapshotKey(job, this.binaryOutput) : undefined;
    const snapshot = key === undefined ? undefined : this.snapshots.get(key);
    this.lastRunFromSnapshot = snapshot !== undefined;
    if (snapshot) {
      this.snapshots.delete(snapshot.key);
      this.snapshots.set(snapshot.key, snapshot);
      return this.invoke(
        job.limits,
        job.allowlist,
        job.libraries,
        async (sb) => {
          const input = this.guestInput(sb, job.input);
          const called = sb.ctx.callFunction(snapshot.run, sb.ctx.undefined, snapshot.ns, input ?? sb.decoder);
          input?.dispose();
          if (called.error) throw new GuestThrow(called.error);
          return this.readOutput(sb, await this.settle(sb, called.value));
        },
        snapshot,
      );
    }
    let loadMs = 0;
    let loadCalledHost = true;
    const outcome = await this.invoke(job.limits, job.allowlist, job.libraries, async (sb) => {
      const run = this.configure(sb, job.limits, job.testMode);
      try {
        const loadStarted = performance.now();
        const ns = await this.evaluateModule(sb, job.code, job.name);
        loadMs = performance.now() - loadStarted;
        loadCalledHost = sb.hostCallCount > 0;
        const input = this.guestInput(sb, job.input);
        const called = sb.ctx.callFunction(run, sb.ctx.undefined, ns, input ?? sb.decoder);
        input?.dispose();
        ns.dispose();
        if (called.error) throw new GuestThrow(called.error);
        return this.readOutput(sb, await this.settle(sb, called.value));
      } finally {
        run.dispose();
      }
    });
    // Only code that loads slowly, and loads without calling out, is worth and fit for a snapshot.
    if (key !== undefined && loadMs > 0 && loadMs < this.snapshotMinLoadMs) this.slowLoads.delete(key);
    if (key !== undefined && outcome.ok && !loadCalledHost && loadMs >= this.snapshotMinLoadMs) {
      if (this.slowLoads.delete(key)) {
        const { code, name, libraries, limits, testMode } = job;
        this.pendingCapture = { key, code, name, libraries, limits, testMode, emit: this.binaryOutput };
      } else {
        this.slowLoads.add(key);
        for (const old of this.slowLoads) {
          if (this.slowLoads.size <= SLOW_LOADS_KEPT) break;
          this.slowLoads.delete(old);
        }
      }
    }
    return outcome;
  }

  /** Calls the guest runtime's setup; returns its `run`. */
  private configure(sb: Sandbox, limits: SandboxLimits, testMode: boolean, emit = this.binaryOutput): QuickJSHandle {
    const logLimit = sb.ctx.newNumber(limits.outputBytes);
    const configured = sb.ctx.callFunction(
      sb.setup,
      sb.ctx.undefined,
      testMode ? sb.ctx.true : sb.ctx.false,
      logLimit,
      emit && sb.emit ? sb.emit : sb.ctx.undefined,
    );
    logLimit.dispose();
    if (configured.error) throw new GuestThrow(configured.error);
    return configured.value;
  }

  /**
   * The events for the guest runtime: an owned string handle with their JSON text, or undefined when
   * the sandbox's decoder will hand them over in binary form (decoded when the guest runtime asks for
   * them, where it would have parsed the text, so errors surface in the same order).
   */
  private guestInput(sb: Sandbox, input: string | Uint8Array): QuickJSHandle | undefined {
    if (typeof input === 'string') return sb.ctx.newString(input);
    if (!this.binaryInput) return sb.ctx.newString(JSON.stringify(decodePlainJson(input)));
    sb.pendingInput = input;
    return undefined;
  }

  /**
   * Checks that this QuickJS build reads the host's binary encoding as the JSON it stands for (the
   * format is version-specific); if not, later binary inputs are converted to JSON text instead.
   */
  async probeBinaryInput(): Promise<boolean> {
    const events = [BINARY_PROBE];
    const outcome = await this.run({
      code: 'export function transformBatch(events) { return [{ events }]; }',
      name: 'binary probe',
      libraries: [],
      input: encodePlainJson([{ message: BINARY_PROBE, metadata: {} }])!,
      testMode: false,
      limits: DEFAULT_LIMITS,
      allowlist: '',
    });
    let read: unknown;
    try {
      read = outcome.ok ? (readOutcome(outcome.output) as { r: [[number, { events: unknown }]] }).r[0][1].events : undefined;
    } catch {
      read = undefined;
    }
    this.binaryInput = JSON.stringify(read) === JSON.stringify(events);
    await this.tidy();
    return this.binaryInput;
  }

  /**
   * Checks that results this build hands over in binary form read back exactly as their JSON text
   * (and are taken that way at all); if not, results stay JSON text.
   */
  async probeBinaryOutput(): Promise<boolean> {
    const job: EngineRunJob = {
      code: `export function transformBatch(events) { return [${BINARY_RESULT_PROBE}]; }`,
      name: 'binary result probe',
      libraries: [],
      input: JSON.stringify([{ message: { messageId: 'probe' } }]),
      testMode: false,
      limits: DEFAULT_LIMITS,
      allowlist: '',
    };
    const asText = async (binary: boolean): Promise<string | undefined> => {
      this.binaryOutput = binary;
      // The probe's result is small; it must take the binary path all the same.
      const minBytes = this.binaryResultMinBytes;
      this.binaryResultMinBytes = 0;
      let outcome: EngineOutcome;
      try {
        outcome = await this.run(job);
      } finally {
        this.binaryResultMinBytes = minBytes;
      }
      await this.tidy();
      // The binary run must really have produced binary output, and the text run text.
      if (!outcome.ok || (typeof outcome.output === 'string') === binary) return undefined;
      try {
        return JSON.stringify(readOutcome(outcome.output));
      } catch {
        return undefined;
      }
    };
    const text = await asText(false);
    const binary = await asText(true);
    this.binaryOutput = text !== undefined && binary === text;
    return this.binaryOutput;
  }

  async check(job: EngineCheckJob): Promise<EngineOutcome> {
    return this.invoke(job.limits, job.allowlist, [job.library], async (sb) => {
      const ns = await this.evaluateModule(sb, job.library.code, `${LIBRARY_PREFIX}${job.library.importName}`);
      ns.dispose();
      return 'true';
    });
  }

  /** The sandbox's `input` host function: decodes the invocation's binary events into the guest. */
  private decodeInput(sb: Sandbox): QuickJSHandle {
    const { ctx } = sb;
    const bytes = sb.pendingInput;
    sb.pendingInput = undefined;
    if (!bytes) throw new Error('no input');
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const buffer = ctx.newArrayBuffer(whole ? bytes.buffer : bytes.slice().buffer);
    const decoded = ctx.decodeBinaryJSON(buffer);
    buffer.dispose();
    const error = takeException(ctx, decoded);
    if (error) throw error;
    return decoded;
  }

  /**
   * Loads the module of `c` in a new instance, with the same setup as an ordinary invocation, and keeps
   * a copy of the resulting memory. Runs under the invocation's limits; whatever goes wrong (a limit,
   * an exception, a fetch, an unexpected state of quickjs-emscripten) only means no snapshot is kept.
   */
  private async capture(c: CaptureRequest): Promise<void> {
    let instance: WasmInstance;
    try {
      instance = await WasmInstance.create(c.limits.memoryBytes, this.options.onMemoryExhausted);
    } catch {
      return;
    }
    try {
      const sb = this.createSandbox(instance);
      const hostRefs = hostRefTable(sb.rt);
      const randomState = this.randomStateAddress(sb);
      if (!hostRefs || randomState === undefined) return;
      this.reseed(instance, randomState);
      instance.memoryExhausted = false;
      sb.limits = c.limits;
      sb.deadline = performance.now() + c.limits.deadlineMs;
      sb.capturing = true;
      sb.rt.setMaxStackSize(c.limits.stackBytes);
      this.installModuleLoader(sb, c.libraries);
      // Compiled now, as it would be at an invocation's first large result, so it is part of the copy.
      if (!this.compileCheck(sb)) return;
      const run = this.configure(sb, c.limits, c.testMode, c.emit);
      const ns = await this.evaluateModule(sb, c.code, c.name);
      sb.capturing = false;
      sb.deadline = Number.NEGATIVE_INFINITY;
      if (instance.memoryExhausted || sb.interrupted || sb.hostCallCount > 0 || sb.unresolvedImport !== undefined) return;
      const view = new Uint8Array(instance.memory.buffer);
      const snapshot: Snapshot = {
        key: c.key,
        sandbox: sb,
        run,
        ns,
        memory: view.slice(0, usedLength(instance.memory.buffer)),
        hostRefs: copyHostRefs(hostRefs),
        randomState,
        contextCaches: contextCaches(sb.ctx),
      };
      this.resetInvocation(sb);
      this.snapshots.delete(c.key);
      this.snapshots.set(c.key, snapshot);
      for (const key of this.snapshots.keys()) {
        if (this.snapshots.size <= this.maxSnapshots) break;
        this.snapshots.delete(key);
      }
    } catch (err) {
      if (err instanceof GuestThrow && err.handle.alive) err.handle.dispose();
    }
  }

  /**
   * Writes the snapshot's memory back, zeroes everything above it and puts the JS-side state that
   * mirrors guest memory back as it was; false when the snapshot cannot be trusted any more.
   */
  private restore(snapshot: Snapshot): boolean {
    const sb = snapshot.sandbox;
    const { instance } = sb;
    try {
      if (instance.memoryExhausted || instance.bytes > SNAPSHOT_MAX_INSTANCE_BYTES) return false;
      const handles = [snapshot.run, snapshot.ns, sb.setup, sb.intrinsics, sb.parse, sb.decoder, sb.emit, sb.check];
      if (handles.some((handle) => !handle?.alive)) return false;
      const caches = contextCaches(sb.ctx);
      if (caches.some((cache, i) => cache !== snapshot.contextCaches[i])) return false;
      const table = hostRefTable(sb.rt);
      if (!table) return false;
      writeBack(instance.memory.buffer, snapshot.memory);
      const refs = copyHostRefs(snapshot.hostRefs);
      table.nextId = refs.nextId;
      table.freelist = refs.freelist;
      table.groups = refs.groups;
      this.reseed(instance, snapshot.randomState);
      this.resetInvocation(sb);
      return true;
    } catch {
      return false;
    }
  }

  /** Per-invocation host-side state of a sandbox, back to how a new one starts. */
  private resetInvocation(sb: Sandbox): void {
    sb.deadline = Number.NEGATIVE_INFINITY;
    sb.interrupted = false;
    sb.hostCalls = new Set();
    sb.abort = new AbortController();
    sb.wake = undefined;
    sb.unresolvedImport = undefined;
    sb.binaryResult = undefined;
    sb.resultTooLarge = undefined;
    sb.pendingInput = undefined;
    sb.hostCallCount = 0;
    sb.capturing = false;
    sb.instance.memoryExhausted = false;
  }

  private reseed(instance: WasmInstance, address: number): void {
    new DataView(instance.memory.buffer).setBigUint64(address, randomSeed(), true);
  }

  /**
   * Address of the context's Math.random state. QuickJS keeps it in its context struct, whose layout
   * the build fixes: the offset is found once, by the 8 bytes that step exactly as xorshift64* while
   * Math.random() runs, and confirmed by seeding it and predicting the next number. Undefined when that
   * fails, which turns snapshots off (restored contexts would all replay one sequence).
   */
  private randomStateAddress(sb: Sandbox): number | undefined {
    if (this.randomStateOffset === null) return undefined;
    const { ctx, instance } = sb;
    const base = (ctx as unknown as ContextInternals).ctx.value;
    const random = (): number => ctx.unwrapResult(ctx.evalCode('Math.random()')).consume((h) => ctx.getNumber(h));
    const memory = (): DataView => new DataView(instance.memory.buffer);
    let offset = this.randomStateOffset;
    if (offset === undefined) {
      const window = 2048;
      const before = new DataView(instance.memory.buffer.slice(base, base + window));
      const value = random();
      const after = memory();
      const found: number[] = [];
      for (let at = 0; at + 8 <= window; at += 4) {
        const [next, predicted] = nextRandom(before.getBigUint64(at, true));
        if (next === after.getBigUint64(base + at, true) && predicted === value) found.push(at);
      }
      offset = found.length === 1 ? found[0]! : undefined;
    }
    let confirmed = offset !== undefined;
    if (offset !== undefined) {
      const seed = randomSeed();
      memory().setBigUint64(base + offset, seed, true);
      const [next, predicted] = nextRandom(seed);
      confirmed = random() === predicted && memory().getBigUint64(base + offset, true) === next;
    }
    this.randomStateOffset = confirmed ? offset : null;
    return confirmed ? base + offset! : undefined;
  }

  private dropInstance(): void {
    // Nothing inside is disposed: after a limit hit the heap may be inconsistent, and the
    // garbage collector reclaims the whole instance anyway.
    this.instance = undefined;
    this.next = undefined;
  }

  private async sandboxFor(limits: SandboxLimits): Promise<Sandbox> {
    if (this.used) await this.tidy(limits.memoryBytes);
    if (this.instance?.maxBytes !== limits.memoryBytes) await this.tidy(limits.memoryBytes);
    const sandbox = this.next ?? this.createSandbox(this.instance!);
    this.next = undefined;
    return sandbox;
  }

  private createSandbox(instance: WasmInstance): Sandbox {
    const rt = instance.module.newRuntime();
    const ctx = rt.newContext();
    const installed = ctx.evalCode(GUEST_RUNTIME_SOURCE, GUEST_RUNTIME_FILENAME);
    const [setup, intrinsics] = ctx.unwrapResult(installed).consume((pair) => [ctx.getProp(pair, 0), ctx.getProp(pair, 1)]);
    const parse = ctx.getProp(ctx.global, 'JSON').consume((json) => ctx.getProp(json, 'parse'));
    const sb: Sandbox = {
      instance,
      rt,
      ctx,
      setup,
      intrinsics,
      parse,
      deadline: Number.POSITIVE_INFINITY,
      interrupted: false,
      limits: DEFAULT_LIMITS,
      allowlist: '',
      hostCalls: new Set(),
      abort: new AbortController(),
      decoder: ctx.undefined,
      hostCallCount: 0,
      capturing: false,
    };
    sb.decoder = ctx.newFunction('input', () => this.decodeInput(sb));
    rt.setInterruptHandler(() => {
      if (!instance.memoryExhausted && performance.now() <= sb.deadline) return false;
      sb.interrupted = true;
      return true;
    });
    sb.emit = ctx.newFunction('emit', (value) => (value && this.takeBinaryResult(sb, value) ? ctx.true : ctx.false));
    for (const name of ['fetch', 'fetchV2'] as const) {
      ctx.newFunction(name, (url, options) => this.hostFetch(sb, name, url, options)).consume((fn) => ctx.setProp(ctx.global, name, fn));
    }
    return sb;
  }

  /** Disposes a sandbox that ended normally; false when that failed and the instance must go. */
  private release(sb: Sandbox): boolean {
    try {
      for (const deferred of sb.hostCalls) deferred.dispose();
      sb.hostCalls.clear();
      sb.setup.dispose();
      sb.intrinsics.dispose();
      sb.check?.dispose();
      sb.emit?.dispose();
      sb.decoder.dispose();
      sb.parse.dispose();
      sb.ctx.dispose();
      sb.rt.dispose();
      return true;
    } catch {
      return false;
    }
  }

  private async invoke(
    limits: SandboxLimits,
    allowlist: string,
    libraries: SandboxLibrary[],
    body: (sb: Sandbox) => Promise<string | Uint8Array>,
    snapshot?: Snapshot,
  ): Promise<EngineOutcome> {
    let sb: Sandbox;
    try {
      sb = snapshot ? snapshot.sandbox : await this.sandboxFor(limits);
    } catch (err) {
      this.dropInstance();
      return { ok: false, kind: 'runtime', message: `the sandbox could not start: ${(err as Error).message}` };
    }
    const { instance } = sb;
    instance.memoryExhausted = false;
    sb.limits = limits;
    sb.allowlist = allowlist;
    sb.deadline = performance.now() + limits.deadlineMs;
    let outcome: EngineOutcome;
    let healthy: boolean;
    try {
      sb.rt.setMaxStackSize(limits.stackBytes);
      this.installModuleLoader(sb, libraries);
      const output = await body(sb);
      // An interruption can surface as an ordinary rejection inside async code; it still ends the invocation.
      if (instance.memoryExhausted) outcome = { ok: false, kind: 'memory', message: limitMessages.memory(limits) };
      else if (sb.interrupted) outcome = { ok: false, kind: 'timeout', message: limitMessages.timeout(limits) };
      else outcome = { ok: true, output };
      healthy = outcome.ok;
    } catch (err) {
      outcome = this.failure(err, sb);
      // An ordinary guest exception leaves QuickJS consistent; a limit hit or a host-side fault may not.
      const limitHit = !outcome.ok && (outcome.kind === 'timeout' || outcome.kind === 'memory');
      healthy = (err instanceof GuestThrow || err instanceof HostFailure) && !limitHit;
    }
    sb.deadline = Number.NEGATIVE_INFINITY;
    sb.abort.abort();
    sb.pendingInput = undefined;
    this.used = { sandbox: sb, healthy, snapshot };
    return outcome;
  }

  private failure(err: unknown, sb: Sandbox): EngineOutcome {
    const { limits } = sb;
    if (sb.instance.memoryExhausted) return { ok: false, kind: 'memory', message: limitMessages.memory(limits) };
    if (err instanceof HostFailure) return { ok: false, kind: err.kind, message: err.message };
    if (sb.interrupted) {
      if (err instanceof GuestThrow && err.handle.alive) err.handle.dispose();
      return { ok: false, kind: 'timeout', message: limitMessages.timeout(limits) };
    }
    if (err instanceof GuestThrow) {
      let dumped: unknown;
      try {
        dumped = sb.ctx.dump(err.handle);
      } catch {
        dumped = 'unreadable error';
      } finally {
        if (err.handle.alive) err.handle.dispose();
      }
      const { name, message } = (dumped ?? {}) as { name?: unknown; message?: unknown };
      if (name === 'InternalError' && message === 'interrupted') {
        return { ok: false, kind: 'timeout', message: limitMessages.timeout(limits) };
      }
      if (name === 'InternalError' && message === 'out of memory') {
        return { ok: false, kind: 'memory', message: limitMessages.memory(limits) };
      }
      if (message === 'stack overflow' && (name === 'InternalError' || name === 'SyntaxError')) {
        return { ok: false, kind: 'memory', message: limitMessages.stack(limits) };
      }
      return { ok: false, kind: name === 'SyntaxError' ? 'compile' : 'runtime', message: errorText(dumped) };
    }
    // Exceptions from the WebAssembly side itself: the host stack ran out inside a deep native
    // recursion, or the instance aborted. The instance is discarded either way.
    const e = err as Error;
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      return { ok: false, kind: 'memory', message: limitMessages.stack(limits) };
    }
    return { ok: false, kind: 'runtime', message: `sandbox engine failure: ${e?.message ?? String(err)}` };
  }

  private installModuleLoader(sb: Sandbox, libraries: SandboxLibrary[]): void {
    const byImportName = new Map(libraries.map((lib) => [lib.importName, lib]));
    sb.rt.setModuleLoader(
      (moduleName) => {
        if (moduleName.startsWith(LIBRARY_PREFIX)) {
          const lib = byImportName.get(moduleName.slice(LIBRARY_PREFIX.length));
          if (lib) return lib.code;
        }
        const spec = moduleName.startsWith(UNRESOLVED_PREFIX) ? moduleName.slice(UNRESOLVED_PREFIX.length) : moduleName;
        sb.unresolvedImport ??= spec;
        return { error: new Error(`import from ${spec} failed. Module not found.`) };
      },
      (_base, requested) => {
        if (byImportName.has(requested)) return `${LIBRARY_PREFIX}${requested}`;
        sb.unresolvedImport ??= requested;
        return `${UNRESOLVED_PREFIX}${requested}`;
      },
    );
  }

  /** `fetch`/`fetchV2` inside the sandbox: a guest promise settled when the guarded host request ends. */
  private hostFetch(sb: Sandbox, name: 'fetch' | 'fetchV2', urlHandle?: QuickJSHandle, optionsHandle?: QuickJSHandle): QuickJSHandle {
    const { ctx } = sb;
    let url = '';
    let options: unknown = {};
    if (urlHandle && ctx.typeof(urlHandle) !== 'undefined') {
      url = ctx.typeof(urlHandle) === 'string' ? ctx.getString(urlHandle) : String(ctx.dump(urlHandle));
      if (ctx.typeof(urlHandle) === 'object' && url === 'null') url = '';
    }
    if (optionsHandle && ctx.typeof(optionsHandle) === 'object') options = ctx.dump(optionsHandle);
    sb.hostCallCount++;
    // A snapshot's module must not reach out: that evaluation is thrown away (see capture).
    if (sb.capturing) throw new Error('fetch is not available here');
    const deferred = ctx.newPromise();
    sb.hostCalls.add(deferred);
    // Slightly past the deadline, so a request that cannot finish in time fails the invocation as a
    // timeout rather than resolving "ERROR" a moment before it; the abort signal ends it at close.
    const timeoutMs = Math.max(1, Math.min(GUEST_FETCH_TIMEOUT_MS, sb.deadline - performance.now() + 100));
    // A snapshot's sandbox serves one invocation after another: this request belongs to this one only.
    const { signal } = sb.abort;
    void performGuestFetch(url, options, timeoutMs, signal, sb.allowlist).then((result) => {
      if (signal.aborted) return;
      sb.hostCalls.delete(deferred);
      try {
        this.settleFetch(sb, name, deferred, result);
      } catch {
        // The sandbox is failing (e.g. interrupted); the pump reports why.
      }
      deferred.dispose();
      sb.wake?.();
    });
    return deferred.handle;
  }

  private settleFetch(sb: Sandbox, name: 'fetch' | 'fetchV2', deferred: QuickJSDeferredPromise, result: GuestFetchResult): void {
    const { ctx } = sb;
    const guestJson = (json: string): QuickJSHandle =>
      ctx.newString(json).consume((text) => ctx.unwrapResult(ctx.callFunction(sb.parse, ctx.undefined, text)));
    let body: unknown;
    let parsed = false;
    if (result.ok) {
      try {
        body = JSON.parse(result.bodyText);
        parsed = true;
      } catch {
        body = result.bodyText;
      }
    }
    if (name === 'fetch') {
      // fetch never rejects: anything short of a JSON body is the string "ERROR".
      const value = result.ok && parsed ? guestJson(result.bodyText) : ctx.newString('ERROR');
      deferred.resolve(value);
      value.dispose();
      return;
    }
    if (result.ok) {
      const value = guestJson(JSON.stringify({ url: result.url, status: result.status, headers: result.headers, body }));
      deferred.resolve(value);
      value.dispose();
      return;
    }
    const failure = ctx.newObject();
    ctx.newString(result.message).consume((message) => ctx.setProp(failure, 'message', message));
    deferred.reject(failure);
    failure.dispose();
  }

  private async evaluateModule(sb: Sandbox, code: string, filename: string): Promise<QuickJSHandle> {
    const evaluated = sb.ctx.evalCode(code, filename, { type: 'module' });
    if (evaluated.error) {
      if (sb.unresolvedImport !== undefined) {
        evaluated.error.dispose();
        throw new HostFailure('import', `import from ${sb.unresolvedImport} failed. Module not found.`);
      }
      throw new GuestThrow(evaluated.error);
    }
    return this.settle(sb, evaluated.value);
  }

  /**
   * Drives a guest value to completion: runs pending jobs and waits for host calls (fetch) until the
   * promise settles, the deadline passes, or nothing is left that could settle it. Takes ownership of
   * `handle`; returns an owned handle to the fulfilled value.
   */
  private async settle(sb: Sandbox, handle: QuickJSHandle): Promise<QuickJSHandle> {
    const { ctx, rt } = sb;
    for (;;) {
      const state = ctx.getPromiseState(handle);
      if (state.type === 'fulfilled') {
        if (state.notAPromise) return handle;
        handle.dispose();
        return state.value;
      }
      if (state.type === 'rejected') {
        handle.dispose();
        throw new GuestThrow(state.error);
      }
      if (rt.hasPendingJob()) {
        const jobs = rt.executePendingJobs();
        if (jobs.error) {
          handle.dispose();
          throw new GuestThrow(jobs.error);
        }
        continue;
      }
      const remaining = sb.deadline - performance.now();
      if (sb.hostCalls.size === 0 || remaining <= 0) {
        handle.dispose();
        if (remaining <= 0) throw new HostFailure('timeout', limitMessages.timeout(sb.limits));
        throw new HostFailure('runtime', 'the transformation returned a promise that never settles');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining + 1);
        sb.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      sb.wake = undefined;
    }
  }

  /**
   * Takes the guest's result object in QuickJS's binary format when that is exactly its JSON: the
   * encoder refuses accessors, functions, symbols and exotic objects without running guest code, the
   * scan refuses values JSON would write differently, and the guest check refuses toJSON methods.
   * Whatever is refused is stringified by the guest as before, so JSON's behaviour and errors stay the
   * same. The output limit applies to the exact JSON size, before anything is copied out. Encoded
   * results under `binaryResultMinBytes` are refused at once: for them, JSON text is faster.
   */
  private takeBinaryResult(sb: Sandbox, value: QuickJSHandle): boolean {
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
          if (bytes.value.byteLength < this.binaryResultMinBytes) return false;
          const scan = scanEncodedJson(bytes.value, MAX_RESULT_DEPTH);
          if (!scan || !this.checkInGuest(sb, value, scan)) return false;
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
  private compileCheck(sb: Sandbox): boolean {
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

  private checkInGuest(sb: Sandbox, value: QuickJSHandle, scan: JsonScan): boolean {
    const { ctx } = sb;
    if (!this.compileCheck(sb) || !sb.check) return false;
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

  /** Reads the guest's result, refusing it before copying when it is over the output limit. */
  private readOutput(sb: Sandbox, handle: QuickJSHandle): string | Uint8Array {
    const { ctx, limits } = sb;
    try {
      if (ctx.typeof(handle) === 'number' && (sb.binaryResult || sb.resultTooLarge)) {
        if (sb.resultTooLarge) throw new HostFailure('output', limitMessages.output(limits));
        return sb.binaryResult!;
      }
      if (ctx.typeof(handle) !== 'string') {
        throw new HostFailure('contract', 'the transformation produced a result the sandbox cannot read');
      }
      const length = ctx.getProp(handle, 'length').consume((h) => ctx.getNumber(h));
      // UTF-8 needs at least one byte per UTF-16 unit, so the length alone can prove an overflow.
      if (length > limits.outputBytes) throw new HostFailure('output', limitMessages.output(limits));
      const output = ctx.getString(handle);
      if (Buffer.byteLength(output, 'utf8') > limits.outputBytes) {
        throw new HostFailure('output', limitMessages.output(limits));
      }
      return output;
    } finally {
      handle.dispose();
    }
  }
}
