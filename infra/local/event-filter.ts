/**
 * Lambda event filtering (the FilterCriteria patterns CDK puts on an event source mapping), for the local
 * stream poller. Supports the pattern forms Weir uses: value lists, `prefix`, `exists`, `anything-but` and
 * nested objects. A record matches when every key of the pattern matches.
 */
type Pattern = Record<string, unknown>;

function matchesValue(rule: unknown, value: unknown, present: boolean): boolean {
  if (rule === null || typeof rule !== 'object') return present && value === rule;
  const r = rule as Record<string, unknown>;
  if ('exists' in r) return r.exists === present;
  if (!present) return false;
  if ('prefix' in r) return typeof value === 'string' && value.startsWith(String(r.prefix));
  if ('anything-but' in r) {
    const excluded = Array.isArray(r['anything-but']) ? r['anything-but'] : [r['anything-but']];
    return !excluded.includes(value);
  }
  return false;
}

export function matchesPattern(pattern: Pattern, record: unknown): boolean {
  const subject = (record ?? {}) as Record<string, unknown>;
  return Object.entries(pattern).every(([key, rule]) => {
    const present = key in subject;
    const value = subject[key];
    if (Array.isArray(rule)) return rule.some((r) => matchesValue(r, value, present));
    if (rule !== null && typeof rule === 'object') return present && matchesPattern(rule as Pattern, value);
    return present && value === rule;
  });
}
