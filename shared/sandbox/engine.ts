import type { QuickJSHandle } from 'quickjs-emscripten-core';
import { BINARY_RESULT_MIN_BYTES } from './binary-result';
import { decodePlainJson, encodePlainJson, readOutcome } from './bjson';
import { configure, evaluateModule, failureOutcome, GuestThrow, HostFailure, readOutput, settle } from './evaluate';
import { DEFAULT_LIMITS, limitMessages } from './limits';
import type { SandboxLimits } from './limits';
import { installModuleLoader, LIBRARY_PREFIX } from './module-loader';
import type { EngineCheckJob, EngineOutcome, EngineRunJob, SandboxLibrary } from './protocol';
import { RandomStateLocator } from './random-state';
import { HeapEndLocator } from './snapshot-memory';
import { createSandbox, releaseSandbox } from './sandbox';
import type { Sandbox } from './sandbox';
import { MAX_SNAPSHOTS, SNAPSHOT_IDLE_RUNS, SNAPSHOT_MIN_LOAD_MS, SnapshotStore } from './snapshot-store';
import { captureSnapshot, restoreSnapshot, snapshotKey } from './snapshots';
import type { CaptureRequest, Snapshot } from './snapshots';
import { WasmInstance } from './wasm-instance';

// The engine's tunables and the snapshot key, where they were always imported from.
export { BINARY_RESULT_MIN_BYTES, MAX_SNAPSHOTS, SNAPSHOT_MIN_LOAD_MS, snapshotKey };

// Linear memory never shrinks: an instance that grew past this is replaced rather than reused.
const RECYCLE_ABOVE_BYTES = 64 * 1024 * 1024;

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

/**
 * Runs user transformations in QuickJS. Every invocation gets its own fresh runtime and context; the
 * WebAssembly instance underneath is reused only while it stays small and no limit was hit. Meant to
 * run inside a worker thread, where the pool's watchdog can terminate a runaway native call.
 *
 * Code that loaded twice in a row is run from a memory snapshot instead (see Snapshot; SnapshotStore
 * decides which code keeps one): after an invocation that loaded it the ordinary way, the module is
 * loaded once more in an instance of its own and the memory copied; later invocations with the same key
 * start from those bytes, so they neither compile nor evaluate anything before the events. A snapshot is
 * dropped after any limit hit or host-side fault, and when its instance grew too large.
 *
 * Module top-level code that reads the clock or Math.random sees the values of the capture moment, as a
 * fresh evaluation at that moment would have; Math.random is reseeded at every restore, so calls made
 * while handling events differ between invocations, as they do on the ordinary path.
 *
 * Call `tidy()` after each invocation (after its result was sent): it releases or restores the used
 * sandbox, takes a pending snapshot and prepares the next sandbox, so none of that is on a caller's clock.
 * A worker that serves a pool tidies without the snapshot and takes it (capturePending) when its pool
 * lets it, so that snapshots are not taken while requests wait for them.
 */
export class QuickJsEngine {
  /**
   * `onMemoryExhausted` is called (synchronously, from inside the guest's allocation) the first time an
   * invocation hits the memory cap, so a supervisor can stop a guest that then stalls in native code.
   * `snapshotMinLoadMs`, `maxSnapshots` and `snapshotIdleRuns` default to SNAPSHOT_MIN_LOAD_MS,
   * MAX_SNAPSHOTS and SNAPSHOT_IDLE_RUNS (`maxSnapshots: 0` turns snapshots off; see SnapshotStore).
   */
  constructor(
    private readonly options: {
      onMemoryExhausted?: () => void;
      binaryResultMinBytes?: number;
      snapshotMinLoadMs?: number;
      maxSnapshots?: number;
      snapshotIdleRuns?: number;
    } = {},
  ) {
    this.binaryResultMinBytes = options.binaryResultMinBytes ?? BINARY_RESULT_MIN_BYTES;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
    this.snapshots = new SnapshotStore({
      maxSnapshots: this.maxSnapshots,
      minLoadMs: options.snapshotMinLoadMs ?? SNAPSHOT_MIN_LOAD_MS,
      idleRuns: options.snapshotIdleRuns ?? SNAPSHOT_IDLE_RUNS,
    });
  }

  private binaryResultMinBytes: number;
  private readonly maxSnapshots: number;
  private readonly snapshots: SnapshotStore;
  private pendingCapture?: CaptureRequest;
  /** Where Math.random's state is in a context; when it cannot be found, snapshots are not used at all. */
  private readonly randomState = new RandomStateLocator();
  /** Where the C heap's end is kept, so restores need not read the memory above it. */
  private readonly heapEnd = new HeapEndLocator();
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
   * True when the next tidy() takes milliseconds: the instance must be replaced. The worker then reports
   * itself busy until tidy() is done.
   */
  get needsFreshInstance(): boolean {
    return !this.instance || (this.used !== undefined && !this.used.snapshot && !this.used.healthy) || this.instance.bytes > RECYCLE_ABOVE_BYTES;
  }

  /** True when a snapshot waits to be taken (milliseconds of work): by tidy(), or capturePending(). */
  get wantsCapture(): boolean {
    return this.pendingCapture !== undefined;
  }

  /** Number of snapshots kept; for tests and diagnostics. */
  get snapshotCount(): number {
    return this.snapshots.size;
  }

  /**
   * Releases (or, for a snapshot, restores) the last invocation's sandbox, takes a pending snapshot
   * unless `capture` is false (it then waits for capturePending()) and prepares a pristine sandbox for
   * the next invocation.
   */
  async tidy(maxBytes: number = this.instance?.maxBytes ?? DEFAULT_LIMITS.memoryBytes, capture = true): Promise<void> {
    const used = this.used;
    this.used = undefined;
    if (used?.snapshot) {
      if (!(used.healthy && restoreSnapshot(used.snapshot))) this.snapshots.delete(used.snapshot.key);
    } else if (used && !(used.healthy && releaseSandbox(used.sandbox))) this.dropInstance();
    if (capture) await this.capturePending();
    if (this.instance && (this.instance.bytes > RECYCLE_ABOVE_BYTES || this.instance.maxBytes !== maxBytes)) {
      this.dropInstance();
    }
    if (!this.instance) this.instance = await WasmInstance.create(maxBytes, this.options.onMemoryExhausted);
    this.next ??= this.createSandbox(this.instance);
  }

  /** Takes the snapshot that waits to be taken, if any (see wantsCapture). */
  async capturePending(): Promise<void> {
    const capture = this.pendingCapture;
    this.pendingCapture = undefined;
    if (capture) await this.capture(capture);
  }

  async run(job: EngineRunJob): Promise<EngineOutcome> {
    // A used snapshot must be restored (or dropped) before it can be looked up again; a snapshot is
    // never taken on an invocation's clock.
    if (this.used) await this.tidy(job.limits.memoryBytes, false);
    const key = this.maxSnapshots > 0 && !this.randomState.failed ? snapshotKey(job, this.binaryOutput) : undefined;
    const snapshot = this.snapshots.use(key);
    this.lastRunFromSnapshot = snapshot !== undefined;
    if (snapshot) {
      return this.invoke(
        job.limits,
        job,
        job.libraries,
        async (sb) => {
          const input = this.guestInput(sb, job.input);
          const called = sb.ctx.callFunction(snapshot.run, sb.ctx.undefined, snapshot.ns, input ?? sb.decoder);
          input?.dispose();
          if (called.error) throw new GuestThrow(called.error);
          return readOutput(sb, await settle(sb, called.value));
        },
        snapshot,
      );
    }
    let loadMs = 0;
    let loadCalledHost = true;
    const outcome = await this.invoke(job.limits, job, job.libraries, async (sb) => {
      const run = configure(sb, job.limits, job.testMode, this.binaryOutput);
      try {
        const loadStarted = performance.now();
        const ns = await evaluateModule(sb, job.code, job.name);
        loadMs = performance.now() - loadStarted;
        loadCalledHost = sb.hostCallCount > 0;
        const input = this.guestInput(sb, job.input);
        const called = sb.ctx.callFunction(run, sb.ctx.undefined, ns, input ?? sb.decoder);
        input?.dispose();
        ns.dispose();
        if (called.error) throw new GuestThrow(called.error);
        return readOutput(sb, await settle(sb, called.value));
      } finally {
        run.dispose();
      }
    });
    // Only code that loads without calling out is fit for a snapshot; the store decides whether it is worth one.
    if (key !== undefined && outcome.ok && !loadCalledHost && loadMs > 0 && this.snapshots.wants(key, loadMs)) {
      const { code, name, libraries, limits, testMode } = job;
      this.pendingCapture = { key, code, name, libraries, limits, testMode, emit: this.binaryOutput };
    }
    return outcome;
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

  /** Finds where the C heap ends (see HeapEndLocator), which the first snapshot would otherwise do. */
  async locateHeapEnd(): Promise<boolean> {
    return (await this.heapEnd.address()) !== undefined;
  }

  async check(job: EngineCheckJob): Promise<EngineOutcome> {
    return this.invoke(job.limits, job, [job.library], async (sb) => {
      const ns = await evaluateModule(sb, job.library.code, `${LIBRARY_PREFIX}${job.library.importName}`);
      ns.dispose();
      return 'true';
    });
  }

  /** Takes a snapshot (see captureSnapshot) and keeps it as the most recently used (see SnapshotStore.add). */
  private async capture(c: CaptureRequest): Promise<void> {
    const snapshot = await captureSnapshot(c, {
      onMemoryExhausted: this.options.onMemoryExhausted,
      binaryResultMinBytes: () => this.binaryResultMinBytes,
      randomState: this.randomState,
      heapEnd: this.heapEnd,
    });
    if (snapshot) this.snapshots.add(snapshot);
  }

  private dropInstance(): void {
    // Nothing inside is disposed: after a limit hit the heap may be inconsistent, and the
    // garbage collector reclaims the whole instance anyway.
    this.instance = undefined;
    this.next = undefined;
  }

  private async sandboxFor(limits: SandboxLimits): Promise<Sandbox> {
    if (this.used || this.instance?.maxBytes !== limits.memoryBytes) await this.tidy(limits.memoryBytes, false);
    const sandbox = this.next ?? this.createSandbox(this.instance!);
    this.next = undefined;
    return sandbox;
  }

  private createSandbox(instance: WasmInstance): Sandbox {
    return createSandbox(instance, () => this.binaryResultMinBytes);
  }

  private async invoke(
    limits: SandboxLimits,
    access: { allowlist: string; credentials?: Record<string, string> },
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
    sb.allowlist = access.allowlist;
    sb.credentials = access.credentials ?? {};
    sb.deadline = performance.now() + limits.deadlineMs;
    let outcome: EngineOutcome;
    let healthy: boolean;
    try {
      sb.rt.setMaxStackSize(limits.stackBytes);
      // A snapshot's loader was installed at capture, for the same libraries (they are part of its key).
      if (!snapshot) installModuleLoader(sb, libraries);
      const output = await body(sb);
      // An interruption can surface as an ordinary rejection inside async code; it still ends the invocation.
      if (instance.memoryExhausted) outcome = { ok: false, kind: 'memory', message: limitMessages.memory(limits) };
      else if (sb.interrupted) outcome = { ok: false, kind: 'timeout', message: limitMessages.timeout(limits) };
      else outcome = { ok: true, output };
      healthy = outcome.ok;
    } catch (err) {
      outcome = failureOutcome(err, sb);
      // An ordinary guest exception leaves QuickJS consistent; a limit hit or a host-side fault may not.
      const limitHit = !outcome.ok && (outcome.kind === 'timeout' || outcome.kind === 'memory');
      healthy = (err instanceof GuestThrow || err instanceof HostFailure) && !limitHit;
    }
    sb.deadline = Number.NEGATIVE_INFINITY;
    sb.abort?.abort();
    sb.pendingInput = undefined;
    this.used = { sandbox: sb, healthy, snapshot };
    return outcome;
  }
}
