/**
 * Names and values as the Measurement Protocol takes them. Docs: "Send Measurement Protocol events", section
 * "Limitations"; "Measurement Protocol reference", section "Reserved names".
 */
export const LIMITS = {
  nameLength: 40,
  paramsPerEvent: 25,
  paramValueLength: 100,
  userProperties: 25,
  userPropertyNameLength: 24,
  userPropertyValueLength: 36,
} as const;

// Analytics Help "Automatically collected events": these page parameters take longer values than 100 characters.
const LONG_VALUES: Record<string, number> = { page_location: 1000, page_referrer: 420, page_title: 300 };

/** A name reduced to what GA4 accepts: [A-Za-z0-9_] only, starting with a letter, at most `max` characters. */
function cleanName(name: string, max: number): string {
  return name
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^[^A-Za-z]+/, '')
    .replace(/_+$/, '')
    .slice(0, max);
}

const RESERVED_PARAM_PREFIX = /^(firebase_|ga_|google_|gtag\.)/;

/** An event parameter name, or undefined where none can be made or the name is reserved (it is dropped). */
export function paramName(name: string): string | undefined {
  const cleaned = cleanName(name, LIMITS.nameLength);
  if (cleaned === '' || cleaned === 'firebase_conversion' || RESERVED_PARAM_PREFIX.test(cleaned)) return undefined;
  return cleaned;
}

/** A parameter value: text cut to its limit (100 characters, more for page parameters); numbers and booleans kept. */
export function paramValue(name: string, value: unknown): unknown {
  return typeof value === 'string' ? value.slice(0, LONG_VALUES[name] ?? LIMITS.paramValueLength) : value;
}

const RESERVED_USER_PROPERTIES = new Set(['first_open_time', 'first_visit_time', 'last_deep_link_referrer', 'user_id', 'first_open_after_install']);

/** A user property name (at most 24 characters), or undefined where it is reserved. */
export function userPropertyName(name: string): string | undefined {
  const cleaned = cleanName(name, LIMITS.userPropertyNameLength);
  if (cleaned === '' || RESERVED_USER_PROPERTIES.has(cleaned) || /^(firebase_|ga_|google_)/.test(cleaned)) return undefined;
  return cleaned;
}
