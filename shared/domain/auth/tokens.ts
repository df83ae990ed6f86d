import { createHash, timingSafeEqual } from 'node:crypto';
import { newId, newSecret } from '../ids';

/**
 * Personal access tokens are stored only as a SHA-256 of the token and found by that hash. Generated tokens
 * (`weir_` + 256 random bits) are high-entropy, so a fast hash is enough; a password hash would only slow down
 * every request. The token id is a public handle for listing and revoking.
 */
export interface IssuedToken {
  tokenId: string;
  token: string;
  tokenHash: string;
}

export const hashSecret = (value: string): string => createHash('sha256').update(value).digest('hex');

export const newTokenValue = (): string => `weir_${newSecret(32)}`;

/** A token record for `token` (a generated one unless the operator chose it, as the bootstrap token may be). */
export const issueToken = (token: string = newTokenValue()): IssuedToken => ({
  tokenId: newId(),
  token,
  tokenHash: hashSecret(token),
});

/** Constant-time equality of two strings, compared through their hashes so lengths never leak. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Constant-time check of a presented value against a stored SHA-256 hex digest. */
export function matchesHash(presented: string, storedHash: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
