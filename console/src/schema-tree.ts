/**
 * The event schema as the console shows it: dotted keys as a tree whose every parent has its row
 * (`properties.coupon_code` under `properties`, never under the key sorted before it), type names as JSON
 * says them, and which keys have so many values that listing them says nothing.
 */
export interface TreeRow {
  key: string;
  /** The last segment of the key. */
  name: string;
  depth: number;
  /** JSON type names, for a parent `object` or `array`. */
  type: string;
  /** Whether the key is a leaf of the schema (a parent is only the path to its leaves). */
  leaf: boolean;
}

const JSON_TYPES: Record<string, string> = { float64: 'number', bool: 'boolean' };

/** `float64,string` → `number, string`. */
export const jsonTypes = (types: string): string =>
  types
    .split(',')
    .map((t) => JSON_TYPES[t] ?? t)
    .join(', ');

const compareSegments = (a: string[], b: string[]): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const [x, y] = [Number(a[i]), Number(b[i])];
    // Array items in their order (2 before 10), other keys as text.
    if (Number.isInteger(x) && Number.isInteger(y)) return x - y;
    return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
};

/** The schema's rows, parents first, each child right under its parent. */
export function treeRows(schema: Record<string, string>): TreeRow[] {
  const rows = new Map<string, TreeRow>();
  for (const key of Object.keys(schema)) {
    const segments = key.split('.');
    segments.forEach((name, depth) => {
      const path = segments.slice(0, depth + 1).join('.');
      const leaf = depth === segments.length - 1;
      const existing = rows.get(path);
      if (leaf) rows.set(path, { key: path, name, depth, type: jsonTypes(schema[key]!), leaf: true });
      else if (!existing) rows.set(path, { key: path, name, depth, type: /^\d+$/.test(segments[depth + 1]!) ? 'array' : 'object', leaf: false });
    });
  }
  return [...rows.values()].sort((a, b) => compareSegments(a.key.split('.'), b.key.split('.')));
}

export interface Distinct {
  Count: number;
  Exact: boolean;
  Of: number;
}

/** How many frequent values a key shows at most. */
export const TOP_VALUES = 5;

/**
 * "high cardinality (~N distinct)" for a key whose values are nearly all distinct (or so many that its counter
 * dropped some: then N is a lower bound); undefined for a key whose values are worth listing.
 */
export function highCardinality(distinct: Distinct | undefined): string | undefined {
  if (!distinct) return undefined;
  if (distinct.Exact) {
    return distinct.Of >= 20 && distinct.Count >= 0.9 * distinct.Of ? `high cardinality (~${distinct.Count.toLocaleString('en')} distinct)` : undefined;
  }
  return distinct.Count >= 100 ? `high cardinality (over ${distinct.Count.toLocaleString('en')} distinct)` : undefined;
}

/** A key that differs between two versions of an event model's schema, its JSON types before and after. */
export interface KeyChange {
  key: string;
  change: 'added' | 'removed' | 'type changed';
  before?: string;
  after?: string;
}

/** What a version changed from the one before it: keys added, keys removed, keys whose types changed; in the tree's order. */
export function schemaChanges(before: Record<string, string>, after: Record<string, string>): KeyChange[] {
  const changes: KeyChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [a, b] = [before[key], after[key]];
    if (a === undefined) changes.push({ key, change: 'added', after: jsonTypes(b!) });
    else if (b === undefined) changes.push({ key, change: 'removed', before: jsonTypes(a) });
    else if (jsonTypes(a) !== jsonTypes(b)) changes.push({ key, change: 'type changed', before: jsonTypes(a), after: jsonTypes(b) });
  }
  return changes.sort((x, y) => compareSegments(x.key.split('.'), y.key.split('.')));
}
