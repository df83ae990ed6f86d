import { createHash } from 'node:crypto';

/**
 * Event schemas (area D): an event flattened to dotted key paths, each leaf typed with the reference's type
 * names. Nested object keys join with `.`, array elements become numeric segments (`properties.items.0.sku`),
 * empty objects and arrays leave no key, and null leaves are not part of the schema (they are reported apart,
 * for the JSON Schema export). A literal key containing a dot collides with the nested path it spells; the
 * later one in the event wins. Keys longer than MAX_PATH_CHARS are left out.
 */
export type TypeName = 'string' | 'float64' | 'bool';

/** Longer dotted keys are left out of schemas (1,000 keys of this length still fit a stored item). */
export const MAX_PATH_CHARS = 256;

export interface FlatEvent {
  /** Non-null leaves: dotted path → value. */
  leaves: Map<string, string | number | boolean>;
  /** Paths whose value was null. */
  nulls: string[];
  /** Paths that held a non-empty array (their elements are `path.0`, `path.1`, …). */
  arrays: string[];
}

export function typeName(value: string | number | boolean): TypeName {
  if (typeof value === 'string') return 'string';
  return typeof value === 'number' ? 'float64' : 'bool';
}

/**
 * Dotted paths as a tree of the keys that made them, kept between events: events of a model repeat the same
 * paths, so each is built (and hashed, by every map it is looked up in) once, not once per event. Bounded:
 * past PATH_NODES the tree starts again.
 */
interface PathNode {
  path: string;
  keys?: Map<string, PathNode>;
  items?: PathNode[];
}
const PATH_NODES = 20_000;
let root: PathNode = { path: '' };
let nodes = 0;

/** A path not seen before: kept in the tree by `keep`, unless the tree is full (then it starts again). */
function made(parent: PathNode, segment: string, keep: (node: PathNode) => void): PathNode {
  const node = { path: parent.path ? `${parent.path}.${segment}` : segment };
  if (++nodes > PATH_NODES) {
    root = { path: '' };
    nodes = 0;
  } else keep(node);
  return node;
}

const childOf = (node: PathNode, key: string): PathNode => node.keys?.get(key) ?? made(node, key, (child) => (node.keys ??= new Map()).set(key, child));

const itemOf = (node: PathNode, index: number): PathNode => node.items?.[index] ?? made(node, String(index), (item) => ((node.items ??= [])[index] = item));

export function flatten(event: Record<string, unknown>): FlatEvent {
  const flat: FlatEvent = { leaves: new Map(), nulls: [], arrays: [] };
  const walk = (value: unknown, node: PathNode) => {
    const path = node.path;
    // Left out, with all below it: a stored schema must stay within an item however long the keys events bring.
    if (path.length > MAX_PATH_CHARS) return;
    if (value === null || value === undefined) {
      if (path) flat.nulls.push(path);
    } else if (Array.isArray(value)) {
      if (value.length > 0 && path) flat.arrays.push(path);
      value.forEach((element, index) => walk(element, itemOf(node, index)));
    } else if (typeof value === 'object') {
      const object = value as Record<string, unknown>;
      for (const key in object) if (Object.hasOwn(object, key)) walk(object[key], childOf(node, key));
    } else if (path && (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
      // A top-level field named "" has no path to show (and could not be a key of the stored schema).
      flat.leaves.set(path, value);
    }
  };
  walk(event, root);
  return flat;
}

/**
 * An object of `entries` in key order (as every schema, count and value map of the API is shown).
 * fromEntries defines own properties, so a key such as `__proto__` is a key like any other.
 */
export const sortedObject = <V>(entries: Iterable<[string, V]>): Record<string, V> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The schema of one event: dotted key → type name, in key order. */
export function schemaOf(flat: FlatEvent): Record<string, TypeName> {
  return sortedObject([...flat.leaves].map(([key, value]) => [key, typeName(value)]));
}

/**
 * A version's identity: the digest of its sorted `key:type` pairs, so key order and values do not matter,
 * and a type change or an added or removed key makes another version.
 */
export function schemaHash(schema: Record<string, string>): string {
  const text = JSON.stringify(
    Object.keys(schema)
      .sort()
      .map((key) => [key, schema[key]]),
  );
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * The schema and version digest of a flattened event. Events of one version nearly always list their keys
 * in the same order, so the sorting and hashing are done once per key order: the cache is keyed by the
 * exact (unambiguous) list of keys and types in event order, and bounded.
 */
const versionCache = new Map<string, { schema: Record<string, TypeName>; hash: string }>();
const VERSION_CACHE_SIZE = 1000;

export function versionOf(flat: FlatEvent): { schema: Record<string, TypeName>; hash: string } {
  // Each key with its length before it and its type's initial after it: unambiguous, and no arrays to build.
  let signature = '';
  for (const [key, value] of flat.leaves) signature += `${key.length}:${key}${typeof value === 'string' ? 's' : typeof value === 'number' ? 'f' : 'b'}`;
  let found = versionCache.get(signature);
  if (!found) {
    if (versionCache.size >= VERSION_CACHE_SIZE) versionCache.clear();
    const schema = schemaOf(flat);
    found = { schema, hash: schemaHash(schema) };
    versionCache.set(signature, found);
  }
  return found;
}

/** A leaf's value as frequent values show it: strings verbatim, numbers and booleans as JavaScript prints them. */
export const valueText = (value: string | number | boolean): string => (typeof value === 'string' ? value : String(value));
