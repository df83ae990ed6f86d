/** What a secret's value is replaced with wherever user code let it out. */
export const REDACTED = '[secret]';

/**
 * A copy of `value` where every occurrence of a secret, in any string (values and keys, at any depth), reads
 * `[secret]`: test results, delivery samples and errors never show a secret that user code logged or returned.
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const sorted = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return value;
  const text = (s: string) => sorted.reduce((out, secret) => out.split(secret).join(REDACTED), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [text(k), walk(item)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * What a failed event's record keeps in place of a secret: the credential's name, never its value, so that
 * a retry can put the credential's value (as it is then) back (`restoreSecrets`).
 */
export const namedRedaction = (key: string) => `[secret:${key}]`;
const NAMED = /\[secret:([^\]]+)\]/g;

/**
 * A copy of `value` where each secret of `named` (credential key → value), at any depth, reads
 * `[secret:<key>]`; any other of `secrets` reads `[secret]`, as everywhere else.
 */
export function redactNamed<T>(value: T, named: Readonly<Record<string, string>>, secrets: readonly string[]): T {
  const byValue = Object.entries(named)
    .filter(([, secret]) => secret.length > 0)
    .sort(([, a], [, b]) => b.length - a.length);
  const text = (s: string) => byValue.reduce((out, [key, secret]) => out.split(secret).join(namedRedaction(key)), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [text(k), walk(item)]));
    return v;
  };
  return redact(byValue.length > 0 ? (walk(value) as T) : value, secrets);
}

/**
 * `value` with each `[secret:<key>]` replaced by that credential's value in `values`: the credential keys it
 * names that `values` lacks (deleted since) are returned instead; a bare `[secret]` (a value of no stored
 * credential) cannot be restored either.
 */
export function restoreSecrets<T>(value: T, values: Readonly<Record<string, string>>): { ok: true; value: T } | { ok: false; missing: string } {
  let missing: string | undefined;
  const text = (s: string) => {
    if (s.includes(REDACTED)) missing ??= 'a secret of no stored credential';
    return s.replace(NAMED, (marker, key: string) => {
      if (values[key] === undefined) missing ??= `the credential ${key}`;
      return values[key] ?? marker;
    });
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [text(k), walk(item)]));
    return v;
  };
  const restored = walk(value) as T;
  return missing === undefined ? { ok: true, value: restored } : { ok: false, missing };
}
