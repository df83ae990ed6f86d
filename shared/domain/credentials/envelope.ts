import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * Envelope encryption of credential values: each workspace has a data key, kept only wrapped by a key
 * encryption key (a KMS key in AWS; locally a key generated once into the runtime's home), and every value
 * is sealed with AES-256-GCM bound to its workspace and key, so a sealed value moved elsewhere won't open.
 */
export interface KeyWrapper {
  /** Which key encryption key wrapped a data key (kept with it, so a later key change is noticed). */
  readonly ref: string;
  newDataKey(workspaceId: string): Promise<{ plaintext: Buffer; wrapped: Buffer }>;
  unwrap(workspaceId: string, wrapped: Buffer): Promise<Buffer>;
}

export const CREDENTIALS_KEY_ENV = 'WEIR_CREDENTIALS_KEY';
export const KMS_KEY_ENV = 'WEIR_KMS_KEY_ID';

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

/** The local key encryption key: 32 random bytes, base64, from WEIR_CREDENTIALS_KEY. */
export class LocalKeyWrapper implements KeyWrapper {
  readonly ref = 'local';
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error(`${CREDENTIALS_KEY_ENV} must be 32 bytes, base64`);
  }

  async newDataKey(workspaceId: string) {
    const plaintext = randomBytes(32);
    const { iv, tag, ciphertext } = seal(this.key, plaintext, `data-key:${workspaceId}`);
    return { plaintext, wrapped: Buffer.concat([iv, tag, ciphertext]) };
  }

  async unwrap(workspaceId: string, wrapped: Buffer) {
    return open(this.key, { iv: wrapped.subarray(0, 12), tag: wrapped.subarray(12, 28), ciphertext: wrapped.subarray(28) }, `data-key:${workspaceId}`);
  }
}

/** AWS KMS: data keys generated and unwrapped by the key the CDK stack creates, bound to the workspace. */
export class KmsKeyWrapper implements KeyWrapper {
  private readonly kms = new KMSClient({});
  constructor(readonly ref: string) {}

  async newDataKey(workspaceId: string) {
    const answer = await this.kms.send(new GenerateDataKeyCommand({ KeyId: this.ref, KeySpec: 'AES_256', EncryptionContext: { workspaceId } }));
    return { plaintext: Buffer.from(answer.Plaintext!), wrapped: Buffer.from(answer.CiphertextBlob!) };
  }

  async unwrap(workspaceId: string, wrapped: Buffer) {
    const answer = await this.kms.send(new DecryptCommand({ KeyId: this.ref, CiphertextBlob: wrapped, EncryptionContext: { workspaceId } }));
    return Buffer.from(answer.Plaintext!);
  }
}

/** The key wrapper this process is configured with; undefined when credentials cannot be kept here. */
export function keyWrapperFromEnv(env: NodeJS.ProcessEnv = process.env): KeyWrapper | undefined {
  if (env[KMS_KEY_ENV]) return new KmsKeyWrapper(env[KMS_KEY_ENV]);
  if (env[CREDENTIALS_KEY_ENV]) return new LocalKeyWrapper(Buffer.from(env[CREDENTIALS_KEY_ENV], 'base64'));
  return undefined;
}
