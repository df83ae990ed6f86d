/**
 * Cross-origin access, in two policies. One object each, read by API Gateway's preflights and gateway
 * responses (infra/stacks), the local gateway (infra/local) and the handlers' answers (shared/http), so the
 * three never disagree.
 *
 * - CORS: the control plane, for the console (a static site on its own origin). Origins are exact: never `*`.
 * - BROWSER_CORS: the data plane's routes that web pages call (ingestion, the SDKs' configuration). Write keys
 *   are public by design, so every origin may send: the page's origin is echoed, with credentials allowed
 *   (some SDKs send with `withCredentials`, which a `*` would fail). The data plane's admin routes get neither.
 */
export const CORS = {
  /** Comma-separated exact origins (`https://d123.cloudfront.net`); unset or empty allows none. */
  originsVariable: 'WEIR_CONSOLE_ORIGINS',
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Idempotency-Key'],
  maxAgeSeconds: 600,
} as const;

export const BROWSER_CORS = {
  allowMethods: ['GET', 'POST', 'OPTIONS'],
  /**
   * Allowed when a preflight names none (a preflight that names some gets them echoed): what the field's
   * browser and mobile SDKs send.
   */
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'AnonymousId',
    'SentAt',
    'X-Retry-Count',
    'Rsa-Retry-Attempt',
    'Rsa-Retry-Reason',
    'Rsa-Since-First-Attempt',
    'Rsa-Since-Last-Attempt',
    'Rsa-Recovered',
  ],
  /** Chromium keeps a preflight at most 2 hours, Firefox a day. */
  maxAgeSeconds: 7200,
} as const;

export function allowedOrigins(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[CORS.originsVariable] ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/** Headers of an answer to `origin`: none when it is not allowed, so the browser keeps the answer from the page. */
export function corsHeaders(origin: string | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (!origin || !allowedOrigins(env).includes(origin)) return {};
  return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
}

/** A preflight's answer headers (API Gateway's mock integration gives the same). */
export function preflightHeaders(origin: string | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const allowed = corsHeaders(origin, env);
  if (!allowed['Access-Control-Allow-Origin']) return {};
  return {
    ...allowed,
    'Access-Control-Allow-Methods': CORS.allowMethods.join(','),
    'Access-Control-Allow-Headers': CORS.allowHeaders.join(','),
    'Access-Control-Max-Age': String(CORS.maxAgeSeconds),
  };
}

/** Headers of a browser route's answer: any page may read it. Without an Origin (not a browser), none. */
export function browserCorsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' };
}

/** A browser route's preflight: the headers the page asked for echoed, else the SDKs' own. */
export function browserPreflightHeaders(origin: string | undefined, requestedHeaders: string | undefined): Record<string, string> {
  return {
    ...browserCorsHeaders(origin),
    'Access-Control-Allow-Methods': BROWSER_CORS.allowMethods.join(','),
    'Access-Control-Allow-Headers': requestedHeaders?.trim() || BROWSER_CORS.allowHeaders.join(','),
    'Access-Control-Max-Age': String(BROWSER_CORS.maxAgeSeconds),
  };
}
