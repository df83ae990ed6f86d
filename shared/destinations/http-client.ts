import { guardedFetch, OutboundError } from '../outbound/guard';
import type { OutboundAllowlist } from '../outbound/allowlist';
import { encodeBody, urlWithParams } from './request';
import type { DeliveryResult, DestinationRequest } from './types';

/** Every destination request Weir sends names itself. */
export const USER_AGENT = 'Weir';
export const DESTINATION_TIMEOUT_MS = 10_000;
/** Overrides the time-out of every destination request (milliseconds). */
export const DESTINATION_TIMEOUT_ENV = 'WEIR_DESTINATION_TIMEOUT_MS';

/** The time-out of a destination request: WEIR_DESTINATION_TIMEOUT_MS, else 10 s. */
export function destinationTimeoutMs(): number {
  const configured = Number(process.env[DESTINATION_TIMEOUT_ENV]);
  return Number.isInteger(configured) && configured > 0 ? configured : DESTINATION_TIMEOUT_MS;
}
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface SendOptions {
  timeoutMs?: number;
  /** Defaults to WEIR_OUTBOUND_ALLOWLIST. */
  allowlist?: OutboundAllowlist | string;
  signal?: AbortSignal;
  /** The type's reading of its vendor's throttling or quota answers (DestinationType.throttled). */
  throttled?: (answer: { status: number; response: unknown }) => boolean;
}

/**
 * Where no HTTP answer came, the status a gateway in front of the destination would have given, so every
 * result carries one status and the retry rule reads it alike: a refused address 403 (never retried),
 * no answer in time 504, no connection 502.
 */
const STATUS_WITHOUT_ANSWER: Record<string, number> = {
  url_required: 400,
  invalid_protocol: 400,
  invalid_url: 400,
  blocked_address: 403,
  blocked_resolution: 403,
  unresolvable: 502,
  timeout: 504,
  too_large: 502,
  too_many_redirects: 502,
  network: 502,
};

/** The longest `Retry-After` honoured: a destination cannot hold its events back for longer than this. */
export const RETRY_AFTER_MAX_MS = 3600_000;

/**
 * A 429's or 503's `Retry-After` (RFC 9110 §10.2.3: whole seconds, or an HTTP date) in milliseconds from now,
 * at most RETRY_AFTER_MAX_MS; undefined when absent or unreadable. `throttled`: the vendor's throttling answer
 * under another status (DestinationType.throttled), whose `Retry-After` counts the same.
 */
export function retryAfterMs(status: number, header: string | undefined, now = Date.now(), throttled = false): number | undefined {
  if ((status !== 429 && status !== 503 && !throttled) || header === undefined) return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : /GMT$/.test(text) ? Date.parse(text) - now : NaN;
  return Number.isFinite(ms) ? Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms)) : undefined;
}

/** 5xx, 429 and 408 may succeed later; any other 4xx will not. */
export const isRetryableStatus = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * The answer as the test interface shows it (the reference's rule): JSON parsed when the content type says
 * JSON, text kept for XML and text answers, anything else "".
 */
function readResponse(contentType: string, text: string): unknown {
  if (/json/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return /xml|text/i.test(contentType) ? text : '';
}

/**
 * Sends one destination request: through the SSRF guard (user-aimed URLs), with a time-out, a bounded
 * response, and Weir's User-Agent. Never rejects: every failure is a result with a status.
 */
export async function sendRequest(request: DestinationRequest, options: SendOptions = {}): Promise<DeliveryResult> {
  const { body, contentType } = encodeBody(request);
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  if (contentType) headers['content-type'] = contentType;
  for (const [key, value] of Object.entries(request.headers)) headers[key.toLowerCase()] = value;
  let url: string;
  try {
    url = urlWithParams(request);
  } catch {
    return { status: 400, response: '', error: `invalid endpoint ${request.endpoint}`, retryable: false };
  }
  try {
    const answer = await guardedFetch(
      url,
      { method: request.method, headers, body },
      {
        timeoutMs: options.timeoutMs ?? destinationTimeoutMs(),
        maxResponseBytes: MAX_RESPONSE_BYTES,
        allowlist: options.allowlist,
        maxRedirects: 5,
        signal: options.signal,
      },
    );
    const response = readResponse(answer.headers['content-type'] ?? '', answer.bodyText);
    const throttled = answer.status >= 300 && (options.throttled?.({ status: answer.status, response }) ?? false);
    const wait = retryAfterMs(answer.status, answer.headers['retry-after'], Date.now(), throttled);
    return {
      status: answer.status,
      response,
      retryable: throttled || isRetryableStatus(answer.status),
      ...(wait !== undefined && { retryAfterMs: wait }),
    };
  } catch (error) {
    const code = error instanceof OutboundError ? error.code : 'network';
    const status = STATUS_WITHOUT_ANSWER[code] ?? 502;
    const message = error instanceof Error ? error.message : String(error);
    return { status, response: '', error: message, retryable: isRetryableStatus(status) };
  }
}
