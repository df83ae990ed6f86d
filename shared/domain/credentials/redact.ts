import { randomBytes } from 'node:crypto';

/** What a secret's value is replaced with wherever user code let it out. */
export const REDACTED = '[secret]';

/** A copy of `value` with `text` applied to every string in it (values and keys, at any depth). */
function mapStrings<T>(value: T, text: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [text(k), walk(item)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * A copy of `value` where every occurrence of a secret, in any string (values and keys, at any depth), reads
 * `[secret]`: test results, delivery samples and errors never show a secret that user code logged or returned.
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const sorted = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return value;
  return mapStrings(value, (s) => sorted.reduce((out, secret) => out.split(secret).join(REDACTED), s));
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * How a failed event's record keeps a secret: a mark bearing the record's own nonce and, for a stored
 * credential, its key (`[secret:<nonce>:<key>]`; `[secret:<nonce>]` for a value of no credential). The nonce is
 * random, made when the record is, and kept beside its payload (never shown): text that arrived in an event
 * cannot bear it, so a retry puts values back only where Weir took them out.
 */
const mark = (nonce: string, key: string | undefined) => (key === undefined ? `[secret:${nonce}]` : `[secret:${nonce}:${key}]`);
const marksOf = (nonce: string) => new RegExp(`\\[secret:${escapeRegExp(nonce)}(?::([A-Za-z0-9_]+))?\\]`, 'g');

/**
 * What marks a value's secrets, for each failed event's record: a copy of the value where each secret, at any
 * depth, reads as a mark of a new nonce (one of `named`, credential key → value, names its key; any other of
 * `secrets` names none); `nonce` is there only when something was marked. One pass over each string (the
 * longest value first where two begin at one place), so a value is never looked for inside a mark.
 */
export function secretMarker(named: Readonly<Record<string, string>>, secrets: readonly string[]): <T>(value: T) => { value: T; nonce?: string } {
  const keyOf = new Map<string, string | undefined>(secrets.filter((s) => s.length > 0).map((s) => [s, undefined]));
  for (const [key, secret] of Object.entries(named)) if (secret.length > 0) keyOf.set(secret, key);
  if (keyOf.size === 0) return (value) => ({ value });
  const find = new RegExp(
    [...keyOf.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return (value) => {
    const nonce = randomBytes(16).toString('base64url');
    let marked = false;
    const result = mapStrings(value, (s) =>
      s.replace(find, (found) => {
        marked = true;
        return mark(nonce, keyOf.get(found));
      }),
    );
    return marked ? { value: result, nonce } : { value };
  };
}

/**
 * `value` with each mark of `nonce` replaced by its credential's value in `values`: the first credential key
 * it names that `values` lacks (deleted since) is returned instead; a mark of no credential cannot be put back
 * either. Any other text (a `[secret:…]` or `[secret]` a sender wrote, a mark of another nonce) stays as it is.
 */
export function restoreSecrets<T>(value: T, nonce: string, values: Readonly<Record<string, string>>): { ok: true; value: T } | { ok: false; missing: string } {
  let missing: string | undefined;
  const marks = marksOf(nonce);
  const restored = mapStrings(value, (s) =>
    s.replace(marks, (found, key: string | undefined) => {
      const secret = key !== undefined && Object.hasOwn(values, key) ? values[key] : undefined;
      if (secret === undefined) missing ??= key === undefined ? 'a secret of no stored credential' : `the credential ${key}`;
      return secret ?? found;
    }),
  );
  return missing === undefined ? { ok: true, value: restored } : { ok: false, missing };
}

/** `value` as people read it: each mark of `nonce` reads `[secret:<key>]`, or `[secret]` for a value of no credential. */
export function showSecrets<T>(value: T, nonce: string): T {
  const marks = marksOf(nonce);
  return mapStrings(value, (s) => s.replace(marks, (_found, key: string | undefined) => (key === undefined ? REDACTED : `[secret:${key}]`)));
}
