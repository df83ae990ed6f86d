import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { BINARY_RESULT_MIN_ROWS, takeBinaryResult } from './binary-result';
import { GUEST_RUNTIME_FILENAME, GUEST_RUNTIME_SOURCE } from './guest-runtime';
import { decodeInput, hostFetch, hostGetCredential } from './host-functions';
import { DEFAULT_LIMITS } from './limits';
import type { SandboxLimits } from './limits';
import type { WasmInstance } from './wasm-instance';

/**
 * A runtime + context that no invocation has touched yet, with the guest runtime script installed.
 * It is created between invocations so that the next one does not wait for it, and it serves exactly
 * one invocation.
 */
export interface Sandbox {
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
  /** What getCredential answers in the current invocation. */
  credentials: Record<string, string>;
  hostCalls: Set<QuickJSDeferredPromise>;
  /** Ends the invocation's host requests when it closes; made by the first request (aborting costs time). */
  abort?: AbortController;
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

/**
 * A pristine sandbox in `instance`, with its host functions installed. `binaryResultMinBytes` is read
 * whenever the guest offers a result (see takeBinaryResult).
 */
export function createSandbox(instance: WasmInstance, binaryResultMinBytes: () => number): Sandbox {
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
    credentials: {},
    hostCalls: new Set(),
    decoder: ctx.undefined,
    hostCallCount: 0,
    capturing: false,
  };
  sb.decoder = ctx.newFunction('input', () => decodeInput(sb));
  rt.setInterruptHandler(() => {
    if (!instance.memoryExhausted && performance.now() <= sb.deadline) return false;
    sb.interrupted = true;
    return true;
  });
  sb.emit = ctx.newFunction('emit', (value, rows) => {
    const minBytes = binaryResultMinBytes();
    // A single row is rarely over the threshold: encoding it only to find that out costs more than it saves.
    if (!value || (minBytes > 0 && rows !== undefined && ctx.getNumber(rows) < BINARY_RESULT_MIN_ROWS)) return ctx.false;
    return takeBinaryResult(sb, value, minBytes) ? ctx.true : ctx.false;
  });
  for (const name of ['fetch', 'fetchV2'] as const) {
    ctx.newFunction(name, (url, options) => hostFetch(sb, name, url, options)).consume((fn) => ctx.setProp(ctx.global, name, fn));
  }
  ctx.newFunction('getCredential', (key) => hostGetCredential(sb, key)).consume((fn) => ctx.setProp(ctx.global, 'getCredential', fn));
  return sb;
}

/** Disposes a sandbox that ended normally; false when that failed and the instance must go. */
export function releaseSandbox(sb: Sandbox): boolean {
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

/** Per-invocation host-side state of a sandbox, back to how a new one starts. */
export function resetInvocation(sb: Sandbox): void {
  sb.deadline = Number.NEGATIVE_INFINITY;
  sb.interrupted = false;
  sb.hostCalls = new Set();
  sb.abort = undefined;
  sb.wake = undefined;
  sb.unresolvedImport = undefined;
  sb.binaryResult = undefined;
  sb.resultTooLarge = undefined;
  sb.pendingInput = undefined;
  sb.hostCallCount = 0;
  sb.capturing = false;
  sb.credentials = {};
  sb.instance.memoryExhausted = false;
}
