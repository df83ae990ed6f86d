import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of credential values: each workspace has a data key, kept only wrapped by a key
 * encryption key (a KMS key in AWS; locally a key generated once into the runtime's home), and every value
 * is sealed with AES-256-GCM bound to its workspace and key, so a sealed value moved elsewhere won't open.
 * The key wrapper is the port; its two adapters are in shared/keys, chosen by the composition root.
 */
export interface KeyWrapper {
  /** Which key encryption key wrapped a data key (kept with it, so a later key change is noticed). */
  readonly ref: string;
  newDataKey(workspaceId: string): Promise<{ plaintext: Buffer; wrapped: Buffer }>;
  unwrap(workspaceId: string, wrapped: Buffer): Promise<Buffer>;
}

export interface Sealed {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

export function seal(key: Buffer, plaintext: Buffer, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

export function open(key: Buffer, sealed: Sealed, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv).setAAD(Buffer.from(aad)).setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
}
