import { createSign } from 'node:crypto';
import * as z from 'zod/mini';
import { problemsOf } from '../../domain/validation';
import { keyMaterial } from '../../key-material';
import { TenantCache, type DestinationScope } from '../../tenant-cache';
import { sendRequest } from '../http-client';
import { restRequest } from '../request';
import type { DeliveryResult } from '../types';

/**
 * Google's OAuth 2.0 for service accounts: a JWT signed with the key's private key (RS256) is exchanged at
 * the key's `token_uri` for an access token, which is kept until shortly before it expires.
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const ASSERTION_LIFETIME_S = 3600;
/** A token is renewed this long before Google says it expires, so none expires on its way. */
const EXPIRY_MARGIN_MS = 60_000;

// zod/mini and the messages of validation.ts: the code of the Google types is bundled on its own and loaded on first
// use (shared/destinations/registry.ts), and with zod's full build it would weigh 110 KB instead of 46.
export const ServiceAccountKey = z.object({
  client_email: z.string().check(z.minLength(1)),
  private_key: z.string().check(z.minLength(1)),
  token_uri: z.optional(z.url()),
});
export type ServiceAccountKey = z.infer<typeof ServiceAccountKey>;

/** The key of a config's `credentials` text, or why it is not one. */
export function parseServiceAccountKey(text: string): { ok: true; key: ServiceAccountKey } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'credentials: not JSON text (a service account key file is expected)' };
  }
  const parsed = z.safeParse(ServiceAccountKey, value);
  if (!parsed.success) {
    const [problem] = problemsOf(parsed.error);
    return { ok: false, error: `credentials: ${problem?.path.join('.') || 'key'}: ${problem?.message ?? 'invalid'}` };
  }
  return { ok: true, key: parsed.data };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The signed assertion for `scope`, valid for an hour from `now` (seconds). */
function signedAssertion(key: ServiceAccountKey, scope: string, now = Math.floor(Date.now() / 1000)): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(JSON.stringify({ iss: key.client_email, scope, aud: key.token_uri ?? GOOGLE_TOKEN_URI, iat: now, exp: now + ASSERTION_LIFETIME_S }));
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key);
  return `${header}.${claims}.${base64url(signature)}`;
}

export type TokenOutcome = { ok: true; token: string } | { ok: false; result: DeliveryResult };

/**
 * Tokens by workspace, destination and a hash of everything they were asked for with (private key, client_email,
 * token_uri, scope): a token is only ever used by the destination whose own key obtained it, never by another
 * workspace or destination naming the same service account, nor after the key is changed.
 */
const tokens = new TenantCache<DestinationScope & { material: string }, string>({ max: 1000 });

const tokenKey = (owner: DestinationScope, key: ServiceAccountKey, scope: string) => ({
  workspaceId: owner.workspaceId,
  destinationId: owner.destinationId,
  material: keyMaterial(key.private_key, key.client_email, key.token_uri ?? GOOGLE_TOKEN_URI, scope),
});

/** Forgets every cached token (tests start from nothing). */
export const clearTokenCache = () => void tokens.clear();

/**
 * An access token of `owner` (the destination whose configuration holds `key`) for `scope`: the one cached for
 * the same destination and key while it is valid, otherwise a new one from the token endpoint. A failure is a
 * delivery result (a refused key is final, a 5xx or no answer retryable).
 */
export async function accessToken(owner: DestinationScope, key: ServiceAccountKey, scope: string): Promise<TokenOutcome> {
  const tokenUri = key.token_uri ?? GOOGLE_TOKEN_URI;
  const cacheKey = tokenKey(owner, key, scope);
  const cached = tokens.get(cacheKey);
  if (cached !== undefined) return { ok: true, token: cached };

  let assertion: string;
  try {
    assertion = signedAssertion(key, scope);
  } catch (error) {
    return { ok: false, result: { status: 400, response: '', error: `credentials: private_key cannot sign: ${(error as Error).message}`, retryable: false } };
  }
  const answer = await sendRequest(
    restRequest({ method: 'POST', endpoint: tokenUri, form: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion } }),
  );
  const body = answer.response as { access_token?: unknown; expires_in?: unknown };
  if (answer.status !== 200 || typeof body?.access_token !== 'string') {
    const error = answer.error ?? `token endpoint ${tokenUri} answered ${answer.status}`;
    return { ok: false, result: { ...answer, error, retryable: answer.retryable } };
  }
  const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : ASSERTION_LIFETIME_S) * 1000;
  tokens.set(cacheKey, body.access_token, lifetimeMs - EXPIRY_MARGIN_MS);
  return { ok: true, token: body.access_token };
}

/** Drops the cached token of `owner` for `scope` (the API refused it with a 401: revoked, or the key was rotated). */
export function forgetToken(owner: DestinationScope, key: ServiceAccountKey, scope: string): void {
  tokens.delete(tokenKey(owner, key, scope));
}
