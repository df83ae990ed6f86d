import { createHash } from 'node:crypto';

/**
 * SHA-256 of credentials' parts (each length-prefixed, so no two lists hash the same bytes), in hex: what a
 * cache key carries of the key material something was made with, never the material itself.
 */
export function keyMaterial(...parts: (string | undefined)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part === undefined ? '-;' : `${Buffer.byteLength(part)}:`).update(part ?? '');
  return hash.digest('hex');
}
