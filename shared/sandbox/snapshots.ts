import { createHash } from 'node:crypto';
import type { QuickJSHandle } from 'quickjs-emscripten-core';
import { compileCheck } from './binary-result';
import { configure, evaluateModule, GuestThrow } from './evaluate';
import type { SandboxLimits } from './limits';
import { installModuleLoader } from './module-loader';
import type { EngineRunJob, SandboxLibrary } from './protocol';
import { contextCaches, copyHostRefs, hostRefTable } from './quickjs-internals';
import type { HostRefTable } from './quickjs-internals';
import { reseed } from './random-state';
import { saveMemory, writeBack } from './snapshot-memory';
import type { HeapEndLocator, SavedMemory } from './snapshot-memory';
import type { RandomStateLocator } from './random-state';
import { createSandbox, resetInvocation } from './sandbox';
import type { Sandbox } from './sandbox';
import { WasmInstance } from './wasm-instance';

/**
 * A snapshot whose instance grew past this during an invocation is dropped rather than restored, which
 * bounds a kept snapshot to this much linear memory plus its copy (typically 6 MiB).
 */
const SNAPSHOT_MAX_INSTANCE_BYTES = 32 * 1024 * 1024;

/**
 * A sandbox whose runtime, context and module (with its libraries) were loaded once, in an instance of
 * its own, and whose whole linear memory was then copied. Each invocation runs on that state; afterwards
 * the copy is written back and the rest of the memory zeroed, so the next one starts from the same bytes.
 * Only module evaluation ran before the copy: no event, result, fetch or host data is in it.
 */
export interface Snapshot {
  key: string;
  sandbox: Sandbox;
  /** The guest runtime's `run`, configured by `setup` before the module was evaluated. */
  run: QuickJSHandle;
  ns: QuickJSHandle;
  /** Linear memory at capture, up to its last non-zero byte; everything above it was zero. */
  memory: SavedMemory;
  /** Host-function ids the captured guest objects refer to (see HostRefTable). */
  hostRefs: HostRefTable;
  /** Address of the context's Math.random state, reseeded at every restore. */
  randomState: number;
  /** quickjs-emscripten's cached context handles at capture; a change means its JS side moved on. */
  contextCaches: unknown[];
}

export interface CaptureRequest {
  key: string;
  code: string;
  name: string;
  libraries: SandboxLibrary[];
  limits: SandboxLimits;
  testMode: boolean;
  emit: boolean;
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

/**
 * Loads the module of `c` in a new instance, with the same setup as an ordinary invocation, and keeps
 * a copy of the resulting memory. Runs under the invocation's limits; whatever goes wrong (a limit,
 * an exception, a fetch, an unexpected state of quickjs-emscripten) only means no snapshot is kept.
 */
export async function captureSnapshot(
  c: CaptureRequest,
  host: { onMemoryExhausted?: () => void; binaryResultMinBytes: () => number; randomState: RandomStateLocator; heapEnd: HeapEndLocator },
): Promise<Snapshot | undefined> {
  let instance: WasmInstance;
  let heapEnd: number | undefined;
  try {
    heapEnd = await host.heapEnd.address();
    instance = await WasmInstance.create(c.limits.memoryBytes, host.onMemoryExhausted);
  } catch {
    return undefined;
  }
  try {
    const sb = createSandbox(instance, host.binaryResultMinBytes);
    const hostRefs = hostRefTable(sb.rt);
    const randomState = host.randomState.address(sb.ctx, instance);
    if (!hostRefs || randomState === undefined) return undefined;
    reseed(instance, randomState);
    instance.memoryExhausted = false;
    sb.limits = c.limits;
    sb.deadline = performance.now() + c.limits.deadlineMs;
    sb.capturing = true;
    sb.rt.setMaxStackSize(c.limits.stackBytes);
    installModuleLoader(sb, c.libraries);
    // Compiled now, as it would be at an invocation's first large result, so it is part of the copy.
    if (!compileCheck(sb)) return undefined;
    const run = configure(sb, c.limits, c.testMode, c.emit);
    const ns = await evaluateModule(sb, c.code, c.name);
    sb.capturing = false;
    sb.deadline = Number.NEGATIVE_INFINITY;
    if (instance.memoryExhausted || sb.interrupted || sb.hostCallCount > 0 || sb.unresolvedImport !== undefined) return undefined;
    const snapshot: Snapshot = {
      key: c.key,
      sandbox: sb,
      run,
      ns,
      memory: saveMemory(instance.memory.buffer, heapEnd),
      hostRefs: copyHostRefs(hostRefs),
      randomState,
      contextCaches: contextCaches(sb.ctx),
    };
    resetInvocation(sb);
    return snapshot;
  } catch (err) {
    if (err instanceof GuestThrow && err.handle.alive) err.handle.dispose();
    return undefined;
  }
}

/**
 * Writes the snapshot's memory back, zeroes everything above it and puts the JS-side state that
 * mirrors guest memory back as it was; false when the snapshot cannot be trusted any more.
 */
export function restoreSnapshot(snapshot: Snapshot): boolean {
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
    Object.assign(table, copyHostRefs(snapshot.hostRefs));
    reseed(instance, snapshot.randomState);
    resetInvocation(sb);
    return true;
  } catch {
    return false;
  }
}
