/**
 * Cross-origin access to the control plane, for the console (a static site on its own origin). One object
 * read by API Gateway's preflight and gateway responses (infra/stacks), the local gateway (infra/local) and
 * the handlers' answers (shared/http), so the three never disagree. Origins are exact: never `*`.
 */
export const CORS = {
  /** Comma-separated exact origins (`https://d123.cloudfront.net`); unset or empty allows none. */
  originsVariable: 'WEIR_CONSOLE_ORIGINS',
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Idempotency-Key'],
  maxAgeSeconds: 600,
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
