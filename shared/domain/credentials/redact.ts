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
