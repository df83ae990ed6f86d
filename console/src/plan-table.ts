/**
 * A tracking plan's specs as the console's table edits them: one entry per event, each with its properties as
 * rows (name, JSON type, required, description). What the table does not show (a property's other keywords, its
 * nested properties, the event schema's other keywords) is kept as it was and written back unchanged, so the table
 * and the JSON view hold the same specs.
 */
export interface PlanProperty {
  name: string;
  /** A JSON type name, several joined by ", ", or "any" for a property with no `type`. */
  type: string;
  required: boolean;
  description: string;
  /** The property schema's other keywords (enum, pattern, nested properties…). */
  rest: Record<string, unknown>;
}

export interface PlanEvent {
  type: string;
  /** The event name ('' for none). */
  name: string;
  description: string;
  properties: PlanProperty[];
  /** The event schema's other keywords (`type: object`, additionalProperties…). */
  rest: Record<string, unknown>;
  /** Required keys the schema names without a property of their own. */
  otherRequired: string[];
}

export const EVENT_TYPES = ['track', 'page', 'screen', 'identify', 'group'] as const;
export const PROPERTY_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'any'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** How an event is named in the console: `track: Order Completed`, or its type alone. */
export const eventLabel = (e: { type: string; name?: string }) => (e.name ? `${e.type}: ${e.name}` : e.type);

function typeOf(schema: Record<string, unknown>): string {
  if (schema.type === undefined) return 'any';
  return [schema.type].flat().map(String).join(', ');
}

/** The table's events from specs (as the API holds them, or as the JSON view parsed them). */
export function eventsOf(specs: unknown[]): PlanEvent[] {
  return specs.filter(isRecord).map((spec) => {
    const schema = isRecord(spec.schema) ? spec.schema : {};
    const { properties, required, ...rest } = schema;
    const names = Array.isArray(required) ? required.map(String) : [];
    const props = isRecord(properties) ? properties : {};
    return {
      type: text(spec.type),
      name: text(spec.name),
      description: text(spec.description),
      rest,
      otherRequired: names.filter((n) => !(n in props)),
      properties: Object.entries(props).map(([name, value]) => {
        const property = isRecord(value) ? value : {};
        const { type: _type, description, ...others } = property;
        return { name, type: typeOf(property), required: names.includes(name), description: text(description), rest: others };
      }),
    };
  });
}

function propertySchema(p: PlanProperty): Record<string, unknown> {
  const types = p.type === 'any' ? [] : p.type.split(',').map((t) => t.trim());
  return { ...(types.length > 0 && { type: types.length === 1 ? types[0] : types }), ...(p.description && { description: p.description }), ...p.rest };
}

/** The specs the table's events make: what the API stores and the JSON view shows. */
export function specsOf(events: PlanEvent[]): Record<string, unknown>[] {
  return events.map((e) => {
    const required = [...e.properties.filter((p) => p.required).map((p) => p.name), ...e.otherRequired];
    const schema = {
      ...e.rest,
      ...(e.properties.length > 0 && { properties: Object.fromEntries(e.properties.map((p) => [p.name, propertySchema(p)])) }),
      ...(required.length > 0 && { required }),
    };
    return { type: e.type, ...(e.name && { name: e.name }), ...(e.description && { description: e.description }), schema };
  });
}

/** What keeps the table from being saved as it is: a property without a name, one named twice, an event listed twice. */
export function problems(events: PlanEvent[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    const label = eventLabel(e);
    if (seen.has(label)) found.push(`${label} is listed twice`);
    seen.add(label);
    const names = new Set<string>();
    for (const p of e.properties) {
      if (!p.name.trim()) found.push(`${label}: a property has no name`);
      else if (names.has(p.name)) found.push(`${label}: property ${p.name} is listed twice`);
      names.add(p.name);
    }
  }
  return found;
}

/** A property's schema in a few words, as the diff shows it: `string, required · the plan's name`. */
export function summary(p: PlanProperty | undefined): string {
  if (!p) return '—';
  const rest = Object.keys(p.rest).length > 0 ? ` · ${JSON.stringify(p.rest)}` : '';
  return `${p.type}${p.required ? ', required' : ''}${p.description ? ` · ${p.description}` : ''}${rest}`;
}

/** A property the table adds: named so that it differs from the event's other properties. */
export function newProperty(event: PlanEvent): PlanProperty {
  let name = 'new_property';
  for (let n = 2; event.properties.some((p) => p.name === name); n++) name = `new_property_${n}`;
  return { name, type: 'string', required: false, description: '', rest: {} };
}

export const newEvent = (): PlanEvent => ({ type: 'track', name: 'New Event', description: '', properties: [], rest: { type: 'object' }, otherRequired: [] });

export interface DiffRow {
  event: string;
  property: string;
  change: string;
  before: string;
  after: string;
}

interface Named {
  type: string;
  name?: string;
}
interface PlanDiff {
  events: {
    added: Named[];
    removed: Named[];
    changed: (Named & { properties: { added: string[]; removed: string[]; changed: string[] }; required: { added: string[]; removed: string[] } })[];
  };
}

/**
 * What changed between two versions, one row per change: events added or removed, and for a changed event each
 * property added, removed or changed (its type, requiredness, description or other keywords) with its schema
 * before and after. What the API's diff names, the versions' specs show.
 */
export function diffRows(diff: PlanDiff, before: unknown[], after: unknown[]): DiffRow[] {
  const find = (events: PlanEvent[], e: Named) => events.find((x) => x.type === e.type && x.name === (e.name ?? ''));
  const [from, to] = [eventsOf(before), eventsOf(after)];
  const rows: DiffRow[] = [
    ...diff.events.added.map((e) => ({
      event: eventLabel(e),
      property: '',
      change: 'event added',
      before: '—',
      after: `${find(to, e)?.properties.length ?? 0} properties`,
    })),
    ...diff.events.removed.map((e) => ({
      event: eventLabel(e),
      property: '',
      change: 'event removed',
      before: `${find(from, e)?.properties.length ?? 0} properties`,
      after: '—',
    })),
  ];
  for (const c of diff.events.changed) {
    const [a, b] = [find(from, c), find(to, c)];
    const names = [...new Set([...c.properties.added, ...c.properties.removed, ...c.properties.changed, ...c.required.added, ...c.required.removed])].sort();
    for (const name of names) {
      const [p, q] = [a?.properties.find((x) => x.name === name), b?.properties.find((x) => x.name === name)];
      const change = !p ? 'added' : !q ? 'removed' : 'changed';
      rows.push({ event: eventLabel(c), property: name, change, before: summary(p), after: summary(q) });
    }
    if (names.length === 0)
      rows.push({ event: eventLabel(c), property: '', change: 'schema changed', before: JSON.stringify(a?.rest ?? {}), after: JSON.stringify(b?.rest ?? {}) });
  }
  return rows;
}
