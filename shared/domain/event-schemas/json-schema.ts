import { sortedObject } from './flatten';
import type { Sketch } from './sketch';

/**
 * JSON Schema (draft 2020-12) export of an event model, built from its sketch: the union schema's dotted
 * keys, the paths seen null and the paths seen as non-empty arrays. It describes every observed event, so it
 * only ever widens: a key seen with several types gets all of them, and no `additionalProperties: false`
 * (keys past the sketch's limits are not tracked). Known blind spot: empty objects and arrays leave no key
 * when flattened, so a path that was `{}`/`[]` in one event and a scalar in another is typed as the scalar.
 */

type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** Emitted order of a `type` array, so the output is stable whatever order the events came in. */
const TYPE_ORDER: JsonType[] = ['string', 'number', 'boolean', 'object', 'array', 'null'];

const TYPE_OF_NAME: Record<string, JsonType | undefined> = { string: 'string', float64: 'number', bool: 'boolean' };

/** Canonical array indexes as flatten writes them (`0`, `1`, … never `01`). */
const isIndex = (segment: string): boolean => /^(0|[1-9]\d*)$/.test(segment);

// Maps, not plain objects, so keys such as `__proto__` or `constructor` are ordinary keys.
interface Node {
  types: Set<JsonType>;
  children: Map<string, Node>;
}

const newNode = (): Node => ({ types: new Set(), children: new Map() });

function child(parent: Node, segment: string): Node {
  let node = parent.children.get(segment);
  if (!node) parent.children.set(segment, (node = newNode()));
  return node;
}

function nodeAt(root: Node, path: string): Node {
  return path.split('.').reduce(child, root);
}

/**
 * Marks containers: children under a path not seen as an array mean an object, and so does a non-index
 * child under an array path (it was an object in some other event). Done on the tree, before any merge of
 * array elements, because after a merge the paths no longer tell.
 */
function markObjects(node: Node): void {
  const isArray = node.types.has('array');
  for (const [segment, sub] of node.children) {
    if (!isArray || !isIndex(segment)) node.types.add('object');
    markObjects(sub);
  }
}

/** Union of two node schemas: types, and children recursively (array elements share one `items`). */
function merge(a: Node, b: Node): Node {
  const merged: Node = { types: new Set([...a.types, ...b.types]), children: new Map(a.children) };
  for (const [segment, sub] of b.children) {
    const mine = merged.children.get(segment);
    merged.children.set(segment, mine ? merge(mine, sub) : sub);
  }
  return merged;
}

function render(node: Node): Record<string, unknown> {
  const types = TYPE_ORDER.filter((type) => node.types.has(type));
  const schema: [string, unknown][] = [];
  // No type at all (a field only ever seen as `{}` or `[]`): anything goes.
  if (types.length > 0) schema.push(['type', types.length === 1 ? types[0] : types]);
  const isArray = node.types.has('array');
  const properties: [string, unknown][] = [];
  let items: Node | undefined;
  for (const [segment, sub] of node.children) {
    // Under an array path, index children are its elements; other children belong to its object form.
    if (isArray && isIndex(segment)) items = items ? merge(items, sub) : sub;
    else properties.push([segment, render(sub)]);
  }
  if (properties.length > 0) schema.push(['properties', sortedObject(properties)]);
  if (items) schema.push(['items', render(items)]);
  return Object.fromEntries(schema);
}

export function jsonSchemaOf(model: { EventID: string; EventType: string; EventIdentifier: string }, sketch: Sketch): Record<string, unknown> {
  const root = newNode();
  for (const [key, names] of sketch.schema) {
    const node = nodeAt(root, key);
    for (const name of names.split(',')) {
      const type = TYPE_OF_NAME[name];
      if (type) node.types.add(type);
    }
  }
  for (const path of sketch.nullable) nodeAt(root, path).types.add('null');
  for (const path of sketch.arrays) nodeAt(root, path).types.add('array');
  // Top-level fields are literal keys (a dot in one is not a path): each gets a property, even when it
  // left nothing in the flattened schema (always `{}`/`[]`), so `required` never names an unknown property.
  for (const field of sketch.topLevel.keys()) child(root, field);
  markObjects(root);

  const required = [...sketch.topLevel]
    .filter(([, count]) => count === sketch.total)
    .map(([field]) => field)
    .sort();
  const properties = render(root).properties ?? {};
  const title = model.EventIdentifier ? `${model.EventType} ${model.EventIdentifier}` : model.EventType;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:weir:event-model:${model.EventID}`,
    title,
    type: 'object',
    properties,
    required,
  };
}
