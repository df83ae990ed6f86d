import * as z from 'zod';
import { CREDENTIAL_KEY } from '../domain/credentials/schemas';

/**
 * Pieces of configuration schemas several destination types share. Definition files import them, so this file
 * imports nothing but zod and other schemas.
 */

/**
 * What a form shows of a configuration field (GET /destination-definitions, the console's destination form): its
 * name as the vendor's settings or documentation call it, what it is in one line (the same words as its row in
 * docs/reference/destinations/<type>.md), and an example value where one helps.
 */
export interface FieldText {
  label: string;
  description: string;
  example?: string | number;
}

/** A configuration field with its display name (`title`), description and example (`examples`), as JSON Schema says them. */
export const field = <S extends z.ZodType>(schema: S, { label, description, example }: FieldText): S =>
  schema.meta({ title: label, description, ...(example !== undefined && { examples: [example] }) }) as S;

/** One side of a list of {from, to} pairs as a form's column shows it: its name and an example. */
export interface PairSide {
  label: string;
  example: string;
  /** The side's schema, a string unless given. */
  schema?: z.ZodString;
}

/** A list of {from, to} pairs (a form shows them as rows of two inputs), each side named, with an example. */
export const pairs = (from: PairSide, to: PairSide) =>
  z.array(
    z.strictObject({
      from: (from.schema ?? z.string()).meta({ title: from.label, examples: [from.example] }),
      to: (to.schema ?? z.string()).meta({ title: to.label, examples: [to.example] }),
    }),
  );

/** An http(s) URL; the error names the field. */
export const httpUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` });

/** The optional `baseUrl` that replaces a vendor's API host(s); `description` says which. */
export const baseUrl = (description: string) => field(httpUrl('baseUrl').optional(), { label: 'Base URL', description, example: 'https://proxy.example.com' });

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

/**
 * The configurable map from the event spec's names to a network's event names; `example` is one of the network's
 * standard events.
 */
export const eventMap = (example: string) =>
  field(
    pairs(
      { label: 'Track event', example: 'Order Completed', schema: z.string().min(1) },
      { label: 'Network event', example, schema: z.string().min(1) },
    ).optional(),
    { label: 'Event mapping', description: 'Track event name → the network event it is sent as; takes precedence over the standard mapping' },
  );

/** The configurable country calling code of phone numbers given without one (see ad-matching.ts). */
export const PhoneCountryCode = field(
  z
    .string()
    .regex(/^[1-9]\d{0,3}$/, 'phoneCountryCode must be a country calling code, digits only (e.g. 1 or 44)')
    .optional(),
  { label: 'Default country calling code', description: 'The country calling code put before phone numbers given without + or 00', example: '44' },
);
