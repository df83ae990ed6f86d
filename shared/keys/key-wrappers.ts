import { randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { open, seal, type KeyWrapper } from '../domain/credentials/envelope';
import { tracer } from '../ops/tracer';

/** The two key encryption keys credentials are wrapped with: AWS KMS, and a local key for the local runtime. */
export const CREDENTIALS_KEY_ENV = 'WEIR_CREDENTIALS_KEY';
export const KMS_KEY_ENV = 'WEIR_KMS_KEY_ID';

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
  // Traced in Lambda like the table's client: each KMS call shows in the invocation's trace.
  private readonly kms = tracer.captureAWSv3Client(new KMSClient({}));
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
