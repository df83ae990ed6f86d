import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import zlib from 'node:zlib';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { isPublicAddress } from './address-policy';
import type { OutboundAllowlist } from './allowlist';
import { allowlistFromEnv, isAddressAllowlisted, isHostAllowlisted, parseAllowlist } from './allowlist';

// Node's http/https modules rather than global fetch: they accept a custom `lookup`, which pins the
// connection to the address that was vetted, so DNS rebinding between check and connect cannot happen.

export type OutboundErrorCode =
  | 'url_required'
  | 'invalid_protocol'
  | 'invalid_url'
  | 'blocked_address'
  | 'blocked_resolution'
  | 'unresolvable'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network';

/** A refused or failed outbound request; `message` is the text user code sees. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string> | Array<[string, string]>;
  body?: string | Uint8Array;
}

export interface GuardedFetchOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Parsed list or raw `WEIR_OUTBOUND_ALLOWLIST`-style string; defaults to the environment variable. */
  allowlist?: OutboundAllowlist | string;
  maxRedirects?: number;
  /** Aborts the request when the caller gives up (e.g. the sandbox invocation ended). */
  signal?: AbortSignal;
}

export interface GuardedResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  bodyText: string;
}

export interface VettedTarget {
  url: URL;
  /** Host name or address without IPv6 brackets. */
  host: string;
  address: string;
  family: 4 | 6;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function resolveAllowlist(list: OutboundAllowlist | string | undefined): OutboundAllowlist {
  if (list === undefined) return allowlistFromEnv();
  return typeof list === 'string' ? parseAllowlist(list) : list;
}

/** Parses the URL text and checks its scheme, before anything is resolved. */
export function parseOutboundUrl(rawUrl: unknown): URL {
  if (rawUrl === undefined || rawUrl === null || String(rawUrl).trim() === '') {
    throw new OutboundError('url_required', 'fetch url is required');
  }
  const text = String(rawUrl).trim();
  if (!/^https?:\/\//i.test(text)) {
    throw new OutboundError('invalid_protocol', 'invalid protocol, only http and https are supported');
  }
  try {
    return new URL(text);
  } catch (err) {
    throw new OutboundError('invalid_url', `invalid url, ${(err as Error).message}`);
  }
}

/**
 * The rule a refused host name broke. A refusal names the host as it was given and never the address it
 * resolved to: what internal names resolve to is not for the sender to learn.
 */
export const RESOLVES_TO_NON_PUBLIC =
  'resolves to a non-public address (private, loopback, link-local, cloud metadata or another reserved range) and is not on the outbound allow-list';

/**
 * A failure's text with the address connected to put back as the host name it was vetted for: a connection
 * error (`connect ECONNREFUSED 10.1.2.3:5432`) would otherwise tell what the name resolves to.
 */
export function withoutAddress(text: string, target: Pick<VettedTarget, 'host' | 'address'>): string {
  return target.host === target.address ? text : text.split(target.address).join(target.host);
}

/**
 * Decides where a request may go: IP literals must be public (or allow-listed); host names are resolved
 * and every address they resolve to must be public (or allow-listed). Returns the address to connect to.
 */
export async function vetUrl(url: URL, allowlist: OutboundAllowlist): Promise<VettedTarget> {
  const host = bareHost(url);
  const literalFamily = net.isIP(host);
  if (literalFamily !== 0) {
    if (!isPublicAddress(host) && !isAddressAllowlisted(allowlist, host)) {
      throw new OutboundError('blocked_address', `blocked request to non-public address: ${host}`);
    }
    return { url, host, address: host, family: literalFamily as 4 | 6 };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    addresses = [];
  }
  const first = addresses[0];
  if (!first) {
    throw new OutboundError('unresolvable', `request to ${url.href} failed, reason: unable to resolve IP address for ${host}`);
  }
  if (!isHostAllowlisted(allowlist, host)) {
    for (const { address } of addresses) {
      if (!isPublicAddress(address) && !isAddressAllowlisted(allowlist, address)) {
        throw new OutboundError('blocked_resolution', `request to ${url.href} failed, reason: ${host} ${RESOLVES_TO_NON_PUBLIC}`);
      }
    }
  }
  return { url, host, address: first.address, family: first.family as 4 | 6 };
}

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [{ address, family }]);
    } else {
      callback(null, address, family);
    }
  };
}

function headerRecord(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decodedBody(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return res.pipe(zlib.createInflate());
  if (encoding === 'br') return res.pipe(zlib.createBrotliDecompress());
  return res;
}

interface HopResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  bodyText: string;
}

function requestOnce(
  target: VettedTarget,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  maxResponseBytes: number,
  signal: AbortSignal,
  wantBody: (status: number, headers: http.IncomingHttpHeaders) => boolean,
): Promise<HopResult> {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<HopResult>((resolve, reject) => {
    const fail = (message: string, code: OutboundErrorCode = 'network') => reject(new OutboundError(code, message));
    const req = client.request({
      protocol: url.protocol,
      hostname: target.host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      agent: false,
      lookup: pinnedLookup(target.address, target.family),
      signal,
    });
    req.on('error', (err) => {
      fail(`request to ${url.href} failed, reason: ${withoutAddress(err.message, target)}`);
    });
    req.on('response', (res) => {
      if (!wantBody(res.statusCode ?? 0, res.headers)) {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bodyText: '' });
        return;
      }
      const stream = decodedBody(res);
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) {
          stream.destroy();
          req.destroy();
          fail(`content size at ${url.href} over limit: ${maxResponseBytes}`, 'too_large');
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (err) => fail(`request to ${url.href} failed, reason: ${withoutAddress(err.message, target)}`));
      stream.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bodyText: Buffer.concat(chunks).toString('utf8') }));
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function normaliseHeaders(init: GuardedFetchInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  const pairs = Array.isArray(init) ? init : Object.entries(init);
  for (const [key, value] of pairs) out[String(key).toLowerCase()] = String(value);
  return out;
}

/**
 * The headers a redirect to another origin (scheme, host or port) keeps: those that describe the request and
 * carry nothing of the sender's. Authorization, Cookie, Proxy-Authorization, API keys and every other header a
 * destination's configuration or user code set are dropped, as browsers and fetch drop Authorization, so a
 * credential meant for one server never reaches the server it redirects to.
 */
const CROSS_ORIGIN_HEADERS = new Set([
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-language',
  'content-length',
  'content-encoding',
]);

function dropCredentialHeaders(headers: Record<string, string>): void {
  for (const name of Object.keys(headers)) if (!CROSS_ORIGIN_HEADERS.has(name)) delete headers[name];
}

/**
 * Fetches a URL on behalf of user code or a webhook: refuses non-public destinations (unless
 * allow-listed), pins the vetted address, re-vets every redirect (and sends no credential header across
 * origins), and bounds time and response size.
 */
export async function guardedFetch(rawUrl: unknown, init: GuardedFetchInit = {}, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const allowlist = resolveAllowlist(options.allowlist);
  const maxRedirects = options.maxRedirects ?? 20;
  let url = parseOutboundUrl(rawUrl);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = method === 'GET' || method === 'HEAD' ? undefined : init.body;
  const headers = normaliseHeaders(init.headers);

  const controller = new AbortController();
  let timedOutAt: string | undefined;
  const timer = setTimeout(
    () => {
      timedOutAt = url.href;
      controller.abort();
    },
    Math.max(1, options.timeoutMs),
  );
  const onCallerAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const timeoutError = () => new OutboundError('timeout', `request to ${timedOutAt ?? url.href} failed, reason: network timeout at: ${timedOutAt ?? url.href}`);

  try {
    for (let redirects = 0; ; redirects++) {
      const target = await Promise.race([
        vetUrl(url, allowlist),
        new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(timeoutError()))),
      ]);
      const hop = await requestOnce(
        target,
        method,
        headers,
        body,
        options.maxResponseBytes,
        controller.signal,
        (status, h) => !(REDIRECT_STATUSES.has(status) && typeof h.location === 'string'),
      ).catch((err: unknown) => {
        throw controller.signal.aborted ? timeoutError() : err;
      });
      const location = hop.headers.location;
      if (REDIRECT_STATUSES.has(hop.status) && typeof location === 'string') {
        if (redirects >= maxRedirects) {
          throw new OutboundError('too_many_redirects', `maximum redirect reached at: ${url.href}`);
        }
        const next = parseOutboundUrl(new URL(location, url).href);
        if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-length'];
          delete headers['content-type'];
        }
        if (next.origin !== url.origin) dropCredentialHeaders(headers);
        url = next;
        continue;
      }
      return { url: url.href, status: hop.status, headers: headerRecord(hop.headers), bodyText: hop.bodyText };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}
