import * as z from 'zod';
import { CREDENTIAL_KEY } from '../domain/credentials/schemas';

/**
 * Pieces of configuration schemas several destination types share. Definition files import them, so this file
 * imports nothing but zod and other schemas.
 */

/** An http(s) URL; the error names the field. */
export const httpUrl = (field: string) => z.url({ protocol: /^https?$/, error: `${field} must be an http(s) URL` });

/** The optional `baseUrl` that replaces a vendor's API host(s); `description` says which. */
export const baseUrl = (description: string) => httpUrl('baseUrl').optional().describe(description);

/** The name of a workspace credential a configuration refers to instead of holding a secret. */
export const CredentialName = z.string().regex(CREDENTIAL_KEY, 'must name a workspace credential (letters, digits and _)');

/**
 * What a secret field may hold in place of its value: the name of a workspace credential,
 * `{ "credential": "AMPLITUDE_KEY" }`. The configuration keeps the reference; delivery puts the credential's
 * value in its place (credential-refs.ts).
 */
export const CredentialRef = z.strictObject({ credential: CredentialName });

/**
 * Marks a configuration field as a secret (an API key, a token, a password, a key file): GET
 * /destination-definitions says so (`secret: true`), and the field may hold a CredentialRef instead of its value.
 */
export const secret = <S extends z.ZodType>(schema: S): S => schema.meta({ secret: true }) as S;

/** The configurable map from the event spec's names to a network's event names (pairs, as forms show them). */
export const EventMap = z
  .array(z.strictObject({ from: z.string().min(1), to: z.string().min(1) }))
  .optional()
  .describe('track event name → the network event it is sent as, {from, to}; takes precedence over the standard mapping');

/** The configurable country calling code of phone numbers given without one (see ad-matching.ts). */
export const PhoneCountryCode = z
  .string()
  .regex(/^[1-9]\d{0,3}$/, 'phoneCountryCode must be a country calling code, digits only (e.g. 1 or 44)')
  .optional()
  .describe('country calling code put before phone numbers given without + or 00 (e.g. 44)');
