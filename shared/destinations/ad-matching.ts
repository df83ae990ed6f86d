import { createHash } from 'node:crypto';
import { firstOf, get, idText, isRecord, traitsOf, userIdOf } from './message';
import type { Message } from './types';

/**
 * The customer information the ad networks' conversion APIs match on (Meta Conversions API, TikTok Events API,
 * Pinterest and Snap Conversions APIs), normalised the way their documentation asks and SHA-256 hashed in
 * lowercase hex. One place for all four, so a person hashes to the same value at each of them.
 *
 * Rules, as Meta's "Customer Information Parameters" table, Pinterest's `user_data` reference and Snap's "User
 * Data Parameters" state them: email trimmed and lowercased; phone digits only, with the country code, without
 * symbols, letters or leading zeros (the "00" or "+" of the international prefix goes; a national number gets
 * the configured country code); first and last name
 * lowercased without punctuation; city lowercased without punctuation, digits or spaces; state a lowercased code
 * without spaces or punctuation; zip lowercased without spaces, a US ZIP+4 cut to its first 5 digits; country the
 * lowercased ISO 3166-1 alpha-2 code; gender "f" or "m"; external ids trimmed and lowercased (as Meta's SDKs do
 * for every field before hashing). A value that already is a SHA-256 hash (64 hex digits) is sent as it is.
 */

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const SHA256 = /^[a-f0-9]{64}$/;

const PUNCTUATION = /[\p{P}\p{S}]/gu;

/** Each identifier's normalisation; undefined when nothing usable is left. */
export const NORMALISE = {
  em: (value: string) => value.toLowerCase(),
  ph: (value: string) => value.replace(/\D/g, '').replace(/^0+/, ''),
  fn: (value: string) => value.toLowerCase().replace(PUNCTUATION, '').trim(),
  ln: (value: string) => value.toLowerCase().replace(PUNCTUATION, '').trim(),
  ct: (value: string) => value.toLowerCase().replace(/[^\p{L}]/gu, ''),
  st: (value: string) => value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''),
  zp: (value: string) => {
    const compact = value.toLowerCase().replace(/\s/g, '');
    return (/^\d{5}-?\d{4}$/.test(compact) ? compact.slice(0, 5) : compact).replace(/-/g, '');
  },
  country: (value: string) => {
    const code = value.toLowerCase().replace(/[^a-z]/g, '');
    return code.length === 2 ? code : '';
  },
  ge: (value: string) => {
    const gender = value.toLowerCase().replace(/[^a-z]/g, '');
    return gender === 'f' || gender === 'female' ? 'f' : gender === 'm' || gender === 'male' ? 'm' : '';
  },
  external_id: (value: string) => value.toLowerCase(),
} as const;

export type MatchKey = keyof typeof NORMALISE;

export interface MatchOptions {
  /**
   * The country calling code (digits) of phone numbers given without one: a number that does not start with
   * "+" or "00" is national, its trunk zeros dropped and this code put before it.
   */
  phoneCountryCode?: string;
  /**
   * How the network takes a phone number before hashing: its digits (Meta, Pinterest, Snap), or E.164 with its
   * leading "+" (TikTok).
   */
  phoneFormat?: 'digits' | 'e164';
}

/** A phone number as the networks match it: the international form's digits, with its country code. */
export function normalisePhone(value: string, options: MatchOptions = {}): string {
  const digits = NORMALISE.ph(value);
  const international = /^\s*(\+|00)/.test(value);
  const number = digits !== '' && !international && options.phoneCountryCode ? `${options.phoneCountryCode}${digits}` : digits;
  return number !== '' && options.phoneFormat === 'e164' ? `+${number}` : number;
}

/** One identifier normalised and hashed; a given SHA-256 hash passes unchanged; undefined when empty. */
export function hashIdentifier(key: MatchKey, value: unknown, options: MatchOptions = {}): string | undefined {
  const given = idText(value);
  if (given === undefined) return undefined;
  if (SHA256.test(given.toLowerCase())) return given.toLowerCase();
  const normalised = key === 'ph' ? normalisePhone(given, options) : NORMALISE[key](given);
  return normalised === '' ? undefined : sha256(normalised);
}

/** Where the event spec keeps each identifier: the traits (an identify's, or context.traits) and their address. */
function rawIdentifiers(message: Message): Record<MatchKey, unknown> {
  const traits = traitsOf(message);
  const address = isRecord(traits.address) ? traits.address : {};
  const pick = (...values: unknown[]) => values.find((v) => idText(v) !== undefined);
  return {
    em: pick(traits.email),
    ph: pick(traits.phone),
    fn: pick(traits.firstName, traits.first_name, traits.firstname),
    ln: pick(traits.lastName, traits.last_name, traits.lastname),
    ct: pick(address.city, traits.city),
    st: pick(address.state, traits.state),
    zp: pick(address.postalCode, address.postal_code, address.zip, traits.postalCode, traits.zip),
    country: pick(address.country, traits.country),
    ge: pick(traits.gender),
    external_id: userIdOf(message),
  };
}

/** The event's identifiers, each normalised and hashed; identifiers the event does not have are left out. */
export function hashedIdentifiers(message: Message, options: MatchOptions = {}): Partial<Record<MatchKey, string>> {
  const raw = rawIdentifiers(message);
  const hashed: Partial<Record<MatchKey, string>> = {};
  for (const key of Object.keys(raw) as MatchKey[]) {
    const value = hashIdentifier(key, raw[key], options);
    if (value !== undefined) hashed[key] = value;
  }
  return hashed;
}

/** What the networks take unhashed: the browser's address and user agent, as the SDKs put them in the context. */
export function clientOf(message: Message): { ip?: string; userAgent?: string } {
  const ip = idText(firstOf(message, 'context.ip', 'request_ip'));
  const userAgent = idText(get(message, 'context.userAgent'));
  return { ...(ip && { ip }), ...(userAgent && { userAgent }) };
}

/**
 * `user_data` as Meta, Pinterest and Snap take it: each hashed identifier a list of one, then the browser's address
 * and user agent unhashed as client_ip_address and client_user_agent.
 */
export function listedUserData(message: Message, options: MatchOptions = {}): Record<string, unknown> {
  const client = clientOf(message);
  return {
    ...Object.fromEntries(Object.entries(hashedIdentifiers(message, options)).map(([key, value]) => [key, [value]])),
    ...(client.ip && { client_ip_address: client.ip }),
    ...(client.userAgent && { client_user_agent: client.userAgent }),
  };
}

/** The page the event happened on (context.page, else a page call's properties). */
export function pageOf(message: Message): { url?: string; referrer?: string } {
  const url = idText(firstOf(message, 'context.page.url', 'properties.url'));
  const referrer = idText(firstOf(message, 'context.page.referrer', 'properties.referrer'));
  return { ...(url && { url }), ...(referrer && { referrer }) };
}

/**
 * A network's click or browser id as the SDKs and sites pass it: `context.<name>`, else `properties.<name>`, else,
 * for a click id, the query parameter of the page URL the ad's click landed on (`fbclid`, `ttclid`).
 */
export function clickIdOf(message: Message, name: string, urlParameter?: string): string | undefined {
  const given = idText(firstOf(message, `context.${name}`, `properties.${name}`));
  if (given || !urlParameter) return given;
  const url = pageOf(message).url;
  if (!url) return undefined;
  try {
    return idText(new URL(url).searchParams.get(urlParameter) ?? undefined);
  } catch {
    return undefined;
  }
}
