/**
 * What a tracking plan knows of an event model's keys: the schema view marks the keys of an event's
 * properties (traits for identify and group) that the source's plan version does not list.
 */
export type Spec = { type: string; name?: string; schema: Record<string, unknown> };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The spec of a captured model: by type and identifier (a model of pages or screens has none: the spec without a name). */
export const specOfModel = (specs: Spec[], type: string, identifier: string): Spec | undefined =>
  specs.find((s) => s.type === type && (s.name ?? '') === identifier);

const PREFIXES: Record<string, string[]> = {
  track: ['properties.'],
  page: ['properties.'],
  screen: ['properties.'],
  identify: ['traits.', 'context.traits.'],
  group: ['traits.', 'context.traits.'],
};

/**
 * Whether the spec lists a flattened key (`properties.address.city`; array elements as numbers): true when it
 * does, false when it does not, undefined for a key the spec does not judge (outside the properties or traits).
 */
export function planKnows(spec: Spec, key: string): boolean | undefined {
  const prefix = (PREFIXES[spec.type] ?? []).find((p) => key.startsWith(p));
  if (!prefix) return undefined;
  let node: unknown = spec.schema;
  for (const segment of key.slice(prefix.length).split('.')) {
    if (!isRecord(node)) return false;
    if (isRecord(node.properties) && segment in node.properties) node = node.properties[segment];
    else if (/^\d+$/.test(segment) && isRecord(node.items)) node = node.items;
    else return false;
  }
  return true;
}
