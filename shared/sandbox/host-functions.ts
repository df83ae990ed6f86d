import type { QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core';
import { GUEST_FETCH_TIMEOUT_MS, performGuestFetch } from './guest-fetch';
import type { GuestFetchResult } from './guest-fetch';
import { takeException } from './quickjs-internals';
import type { Sandbox } from './sandbox';

// Host functions the guest calls: `input` (its binary events), fetch/fetchV2 and getCredential. The result
// hand-over (`emit`) is in binary-result.ts.

/** The sandbox's `input` host function: decodes the invocation's binary events into the guest. */
export function decodeInput(sb: Sandbox): QuickJSHandle {
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

/** `fetch`/`fetchV2` inside the sandbox: a guest promise settled when the guarded host request ends. */
export function hostFetch(sb: Sandbox, name: 'fetch' | 'fetchV2', urlHandle?: QuickJSHandle, optionsHandle?: QuickJSHandle): QuickJSHandle {
  const { ctx } = sb;
  let url = '';
  let options: unknown = {};
  if (urlHandle && ctx.typeof(urlHandle) !== 'undefined') {
    url = ctx.typeof(urlHandle) === 'string' ? ctx.getString(urlHandle) : String(ctx.dump(urlHandle));
    if (ctx.typeof(urlHandle) === 'object' && url === 'null') url = '';
  }
  if (optionsHandle && ctx.typeof(optionsHandle) === 'object') options = ctx.dump(optionsHandle);
  sb.hostCallCount++;
  // A snapshot's module must not reach out: that evaluation is thrown away (see captureSnapshot).
  if (sb.capturing) throw new Error('fetch is not available here');
  const deferred = ctx.newPromise();
  sb.hostCalls.add(deferred);
  // Slightly past the deadline, so a request that cannot finish in time fails the invocation as a
  // timeout rather than resolving "ERROR" a moment before it; the abort signal ends it at close.
  const timeoutMs = Math.max(1, Math.min(GUEST_FETCH_TIMEOUT_MS, sb.deadline - performance.now() + 100));
  // A snapshot's sandbox serves one invocation after another: this request belongs to this one only.
  sb.abort ??= new AbortController();
  const { signal } = sb.abort;
  void performGuestFetch(url, options, timeoutMs, signal, sb.allowlist).then((result) => {
    if (signal.aborted) return;
    sb.hostCalls.delete(deferred);
    try {
      settleFetch(sb, name, deferred, result);
    } catch {
      // The sandbox is failing (e.g. interrupted); the pump reports why.
    }
    deferred.dispose();
    sb.wake?.();
  });
  return deferred.handle;
}

function settleFetch(sb: Sandbox, name: 'fetch' | 'fetchV2', deferred: QuickJSDeferredPromise, result: GuestFetchResult): void {
  const { ctx } = sb;
  const guestJson = (json: string): QuickJSHandle => ctx.newString(json).consume((text) => ctx.unwrapResult(ctx.callFunction(sb.parse, ctx.undefined, text)));
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

/**
 * `getCredential(key)`, the reference's semantics: a null or undefined key throws TypeError "Key should be
 * valid and defined"; a key that is not a string, or unknown, answers undefined. Values are per invocation
 * and never part of a snapshot (a module that reads one at load is never snapshotted).
 */
export function hostGetCredential(sb: Sandbox, keyHandle?: QuickJSHandle): QuickJSHandle | { error: QuickJSHandle } {
  const { ctx } = sb;
  sb.hostCallCount++;
  if (sb.capturing) throw new Error('getCredential is not available here');
  const type = keyHandle ? ctx.typeof(keyHandle) : 'undefined';
  if (type === 'undefined' || (type === 'object' && ctx.dump(keyHandle!) === null)) {
    return { error: ctx.newError({ name: 'TypeError', message: 'Key should be valid and defined' }) };
  }
  if (type !== 'string') return ctx.undefined;
  const key = ctx.getString(keyHandle!);
  return Object.hasOwn(sb.credentials, key) ? ctx.newString(sb.credentials[key]!) : ctx.undefined;
}
