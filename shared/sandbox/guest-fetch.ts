import { guardedFetch, OutboundError } from '../outbound/guard';
import type { GuardedFetchInit } from '../outbound/guard';

export const GUEST_FETCH_TIMEOUT_MS = 10_000;
export const GUEST_FETCH_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type GuestFetchResult = { ok: true; url: string; status: number; headers: Record<string, string>; bodyText: string } | { ok: false; message: string };

/** Builds the request from the options object user code passed (already copied out of the sandbox). */
export function guestRequestInit(options: unknown): GuardedFetchInit {
  if (options === null || typeof options !== 'object') return {};
  const { method, headers, body } = options as Record<string, unknown>;
  const init: GuardedFetchInit = {};
  if (typeof method === 'string') init.method = method;
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    init.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
  }
  if (body !== undefined && body !== null) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  return init;
}

/**
 * Runs one fetch for user code through the SSRF guard. Never rejects: a failure resolves with the
 * user-visible message (the reference product's fetchV2 texts).
 */
export async function performGuestFetch(url: string, options: unknown, timeoutMs: number, signal: AbortSignal, allowlist: string): Promise<GuestFetchResult> {
  try {
    const res = await guardedFetch(url, guestRequestInit(options), {
      timeoutMs,
      maxResponseBytes: GUEST_FETCH_MAX_RESPONSE_BYTES,
      allowlist,
      signal,
    });
    return { ok: true, url: res.url, status: res.status, headers: res.headers, bodyText: res.bodyText };
  } catch (err) {
    const message = err instanceof OutboundError ? err.message : `request to ${url} failed, reason: ${(err as Error)?.message ?? String(err)}`;
    return { ok: false, message };
  }
}
