/**
 * Dot paths into events, split once when a rule list is compiled. Reads follow own properties only. Changes
 * copy the objects along the path and share everything else, so an event that several destinations get is
 * never changed under another one's feet.
 */
export type Segments = readonly string[];

const hasOwn = Object.prototype.hasOwnProperty;

export const segmentsOf = (path: string): Segments => path.split('.');

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => typeof value === 'object' && value !== null;

/** The value at `segments` (undefined when any step is missing or not an object). */
export function getAt(root: unknown, segments: Segments): unknown {
  let value = root;
  for (const segment of segments) {
    if (!isContainer(value) || !hasOwn.call(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** What an update returns to remove the key it was given. */
export const REMOVE: unique symbol = Symbol('remove');

/**
 * `root` with the value at `segments` replaced by `change(value)` (REMOVE deletes it); `root` itself when the
 * path is absent or the value stays the same.
 */
export function updateAt<T>(root: T, segments: Segments, change: (value: unknown) => unknown, from = 0): T {
  if (!isContainer(root)) return root;
  const segment = segments[from]!;
  if (!hasOwn.call(root, segment)) return root;
  const current = (root as Record<string, unknown>)[segment];
  const next = from === segments.length - 1 ? change(current) : updateAt(current, segments, change, from + 1);
  if (next === current) return root;
  if (Array.isArray(root)) {
    const copy = root.slice();
    if (next === REMOVE) copy.splice(Number(segment), 1);
    else copy[Number(segment)] = next;
    return copy as T;
  }
  const copy: Record<string, unknown> = { ...(root as Record<string, unknown>) };
  if (next === REMOVE) delete copy[segment];
  else copy[segment] = next;
  return copy as T;
}

/** Paths below one object, as a tree: a leaf keeps its whole value. */
export type PathTree = Map<string, PathTree | true>;

export function treeOf(paths: Segments[]): PathTree {
  const tree: PathTree = new Map();
  for (const segments of paths) {
    let node = tree;
    segments.forEach((segment, i) => {
      const found = node.get(segment);
      if (found === true) return;
      if (i === segments.length - 1) return void node.set(segment, true);
      let child = found;
      if (!child) node.set(segment, (child = new Map()));
      node = child;
    });
  }
  return tree;
}

/** A new object with only what the tree names; below an array, the tree applies to each element. */
export function pick(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((element) => pick(element, tree));
  if (!isContainer(value)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const [segment, below] of tree) {
    if (!hasOwn.call(value, segment)) continue;
    const inner = (value as Record<string, unknown>)[segment];
    if (below === true) kept[segment] = inner;
    else if (isContainer(inner)) kept[segment] = pick(inner, below);
  }
  return kept;
}
