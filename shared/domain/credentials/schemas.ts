// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';

/** Credentials for transformations: `getCredential(key)` reads them in the sandbox. */
export const CREDENTIAL_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const MAX_CREDENTIAL_BYTES = 16 * 1024;
export const MAX_CREDENTIALS_PER_WORKSPACE = 200;
/**
 * Fewest characters of a credential a hash rule salts with: a shorter salt (an empty one above all) leaves the
 * hashes of guessable values (e-mails, phone numbers) open to anyone who hashes the guesses.
 */
export const MIN_SALT_LENGTH = 16;

/**
 * Whether a value is a reference to a workspace credential, `{ "credential": NAME }`, as a destination's secret
 * field may hold one in place of its value (shared/destinations/credential-refs.ts).
 */
export const isCredentialRef = (value: unknown): value is { credential: string } =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as { credential?: unknown }).credential === 'string';

export const CredentialKeyParams = z.object({
  key: z.string().check(z.regex(CREDENTIAL_KEY, 'key must be an identifier: letters, digits and _, not starting with a digit, at most 128 characters')),
});

export const CredentialPut = z.strictObject({
  value: z
    .string({ error: 'value must be a string' })
    .check(z.refine((v) => Buffer.byteLength(v) <= MAX_CREDENTIAL_BYTES, `value must be at most ${MAX_CREDENTIAL_BYTES} bytes`)),
  isSecret: z._default(z.boolean({ error: 'isSecret must be true or false' }), true).check(z.describe('secret values are never shown again once written')),
});

export const CredentialView = z.object({
  key: z.string(),
  isSecret: z.boolean(),
  value: z.optional(z.string()).check(z.describe('only for credentials that are not secret')),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CredentialView = z.infer<typeof CredentialView>;

/** Per-call credentials of a test request: `[{key, value, isSecret?}]` as the reference engine takes them, or `{key: value}`. */
export const CredentialOverrides = z.pipe(
  z
    .union([
      z
        .array(
          z.object({
            key: z.string().check(z.regex(CREDENTIAL_KEY, 'key must be an identifier')),
            value: z.string(),
            isSecret: z.optional(z.boolean()),
          }),
        )
        .check(z.maxLength(200)),
      z.record(z.string().check(z.regex(CREDENTIAL_KEY, 'keys must be identifiers')), z.string()),
    ])
    .check(z.describe('credentials for this call only, over the stored ones')),
  z.transform((given: { key: string; value: string; isSecret?: boolean }[] | Record<string, string>) =>
    Array.isArray(given)
      ? given.map((c) => ({ key: c.key, value: c.value, isSecret: c.isSecret ?? true }))
      : Object.entries(given).map(([key, value]) => ({ key, value, isSecret: true })),
  ),
);
export type CredentialOverrides = z.output<typeof CredentialOverrides>;

/** Binary as the store returns it (a Uint8Array), as a Buffer. */
const Bytes = z.pipe(
  z.instanceof(Uint8Array),
  z.transform((bytes: Uint8Array<ArrayBuffer>): Buffer => Buffer.from(bytes)),
);

/** A credential as it is kept: its value sealed with the workspace's data key (envelope.ts), never in plaintext. */
export const StoredCredential = z.object({
  key: z.string(),
  isSecret: z.boolean(),
  iv: Bytes,
  tag: Bytes,
  ciphertext: Bytes,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StoredCredential = z.output<typeof StoredCredential>;

/** A workspace's data key as it is kept: wrapped by the key encryption key named by `ref`. */
export const WrappedDataKey = z.object({ wrapped: Bytes, ref: z.string() });
export type WrappedDataKey = z.output<typeof WrappedDataKey>;
