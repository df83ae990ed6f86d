import * as z from 'zod';
import { CREDENTIAL_KEY } from '../domain/credentials/schemas';

/**
 * Pieces of configuration schemas several destination types share. Definition files import them, so this file
 * imports nothing but zod and other schemas.
 */

/** One side of a list of {from, to} pairs as a form's column shows it: its name and an example. */
export interface PairSide {
  label: string;
  example: string;
}

/**
 * What a form shows of a configuration field (GET /destination-definitions, the console's destination form): its
 * name as the vendor's settings or documentation call it, what it is in one line (the same words as its row in
 * docs/reference/destinations/<type>.md), an example value where one helps, and for a list of {from, to} pairs
 * what each side is.
 */
export interface FieldText {
  label: string;
  description: string;
  example?: string | number;
  columns?: { from: PairSide; to: PairSide };
}

/**
 * The texts of every field of a configuration schema, one per key: kept beside the schema in each type's
 * definition.ts, out of the schema itself, so that only what lists the definitions carries them (a function that
 * only checks configurations bundles none of it). Plain literals, constants and calls marked pure only, for the
 * same reason.
 */
export type FieldTexts<S extends z.ZodType> = { readonly [K in keyof z.input<S>]-?: FieldText };

/** An http(s) URL; the error names the field. */
export const httpUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` });

/** The optional `baseUrl` that replaces a vendor's API host(s); its text says which. */
export const BASE_URL_LABEL = 'Base URL';
export const baseUrl = () => httpUrl('baseUrl').optional();

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
const EventMap = z.array(z.strictObject({ from: z.string().min(1), to: z.string().min(1) })).optional();

/** The configurable country calling code of phone numbers given without one (see ad-matching.ts). */
export const PhoneCountryCode = z
  .string()
  .regex(/^[1-9]\d{0,3}$/, 'phoneCountryCode must be a country calling code, digits only (e.g. 1 or 44)')
  .optional();
export const PHONE_COUNTRY_CODE_TEXT: FieldText = {
  label: 'Default country calling code',
  description: 'The country calling code put before phone numbers given without + or 00',
  example: '44',
};

/** The fields an ad network's conversion API ends its configuration with: event map, phone country code, base URL. */
export const adNetworkConfig = () => ({ eventMap: EventMap, phoneCountryCode: PhoneCountryCode, baseUrl: baseUrl() });

/**
 * An ad network's field texts: its own fields' (`own`), then those of adNetworkConfig's fields, with an example of
 * the network's event names and the API host the base URL replaces. Calls of it are marked pure, so that a bundle
 * that never reads the texts drops them.
 */
export const adNetworkTexts = <T extends Record<string, FieldText>>(own: T, networkEvent: string, host: string) => ({
  ...own,
  eventMap: {
    label: 'Event mapping',
    description: 'Track event name → the network event it is sent as; takes precedence over the standard mapping',
    columns: { from: { label: 'Track event', example: 'Order Completed' }, to: { label: 'Network event', example: networkEvent } },
  },
  phoneCountryCode: PHONE_COUNTRY_CODE_TEXT,
  baseUrl: { label: BASE_URL_LABEL, description: `Replaces ${host} (proxies, tests)` },
});

/**
 * The AWS destinations' (S3, Firehose) region and endpoint, and their credential fields: which workspace credential
 * holds each key.
 */
export const AwsRegion = z
  .string()
  .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
  .optional();
export const AwsEndpoint = z.url({ protocol: /^https?$/ }).optional();
export const ACCESS_KEY_ID_CREDENTIAL_TEXT: FieldText = {
  label: 'Access key ID credential',
  description: 'The workspace credential that holds the access key ID',
  example: 'AWS_ACCESS_KEY_ID',
};
export const SECRET_ACCESS_KEY_CREDENTIAL_TEXT: FieldText = {
  label: 'Secret access key credential',
  description: 'The workspace credential that holds the secret access key',
  example: 'AWS_SECRET_ACCESS_KEY',
};

/** The Google destinations' (BigQuery, Sheets) service account key. */
export const ServiceAccountKey = secret(z.string().min(1));
export const SERVICE_ACCOUNT_KEY_TEXT: FieldText = {
  label: 'Service account key',
  description: "The service account's key file (its JSON text)",
  example: '{"type": "service_account", ...}',
};
