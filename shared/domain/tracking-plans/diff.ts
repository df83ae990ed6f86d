import { isDeepStrictEqual } from 'node:util';
import type { EventSpec } from './schemas';
import { specKey } from './validator';
import { isRecord } from '../../destinations/message';

const propertiesOf = (spec: EventSpec): Record<string, unknown> => (isRecord(spec.schema.properties) ? spec.schema.properties : {});
const requiredOf = (spec: EventSpec): string[] => (Array.isArray(spec.schema.required) ? spec.schema.required.map(String) : []);
const sorted = (values: Iterable<string>) => [...values].sort();
const ref = (spec: EventSpec) => ({ type: spec.type, ...(spec.name !== undefined && { name: spec.name }) });

/** What changed between two versions' specs: events added and removed, and per kept event its properties and required keys. */
export function diffSpecs(from: EventSpec[], to: EventSpec[]) {
  const before = new Map(from.map((s) => [specKey(s.type, s.name), s]));
  const after = new Map(to.map((s) => [specKey(s.type, s.name), s]));
  const added = to.filter((s) => !before.has(specKey(s.type, s.name))).map(ref);
  const removed = from.filter((s) => !after.has(specKey(s.type, s.name))).map(ref);
  const changed = [];
  for (const [key, next] of after) {
    const prev = before.get(key);
    if (!prev || isDeepStrictEqual(prev.schema, next.schema)) continue;
    const [a, b] = [propertiesOf(prev), propertiesOf(next)];
    const [ra, rb] = [new Set(requiredOf(prev)), new Set(requiredOf(next))];
    changed.push({
      ...ref(next),
      properties: {
        added: sorted(Object.keys(b).filter((k) => !(k in a))),
        removed: sorted(Object.keys(a).filter((k) => !(k in b))),
        changed: sorted(Object.keys(b).filter((k) => k in a && !isDeepStrictEqual(a[k], b[k]))),
      },
      required: { added: sorted([...rb].filter((k) => !ra.has(k))), removed: sorted([...ra].filter((k) => !rb.has(k))) },
    });
  }
  return { added, removed, changed };
}
