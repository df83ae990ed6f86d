import type { QuickJSHandle } from 'quickjs-emscripten-core';
import type { SandboxErrorKind } from './errors';
import { limitMessages } from './limits';
import type { SandboxLimits } from './limits';
import type { EngineOutcome } from './protocol';
import type { Sandbox } from './sandbox';

// Evaluating guest code in a sandbox: the module, the guest runtime's setup and run, the promises they
// return, the result they produce, and what a failure among them means for the invocation.

/** A guest exception surfaced to the host (error handle owned by the holder). */
export class GuestThrow {
  constructor(readonly handle: QuickJSHandle) {}
}

/** A failure decided by the host (import resolution, limits, protocol). */
export class HostFailure {
  constructor(
    readonly kind: SandboxErrorKind,
    readonly message: string,
  ) {}
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

/** Calls the guest runtime's setup; returns its `run`. */
export function configure(sb: Sandbox, limits: SandboxLimits, testMode: boolean, emit: boolean): QuickJSHandle {
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

export async function evaluateModule(sb: Sandbox, code: string, filename: string): Promise<QuickJSHandle> {
  const evaluated = sb.ctx.evalCode(code, filename, { type: 'module' });
  if (evaluated.error) {
    if (sb.unresolvedImport !== undefined) {
      evaluated.error.dispose();
      throw new HostFailure('import', `import from ${sb.unresolvedImport} failed. Module not found.`);
    }
    throw new GuestThrow(evaluated.error);
  }
  return settle(sb, evaluated.value);
}

/**
 * Drives a guest value to completion: runs pending jobs and waits for host calls (fetch) until the
 * promise settles, the deadline passes, or nothing is left that could settle it. Takes ownership of
 * `handle`; returns an owned handle to the fulfilled value.
 */
export async function settle(sb: Sandbox, handle: QuickJSHandle): Promise<QuickJSHandle> {
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

/** Reads the guest's result, refusing it before copying when it is over the output limit. */
export function readOutput(sb: Sandbox, handle: QuickJSHandle): string | Uint8Array {
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

/** The outcome of an invocation that threw `err`. */
export function failureOutcome(err: unknown, sb: Sandbox): EngineOutcome {
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
