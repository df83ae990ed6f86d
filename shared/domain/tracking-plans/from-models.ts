import { ValidationError } from '../errors';
import { PLAN_EVENT_TYPES, type EventSpec, type PlanEventType } from './schemas';
import { isRecord } from '../../destinations/message';

/** What a spec is made from: a captured event model's type, identifier, JSON Schema, key counts and total. */
export interface CapturedModel {
  eventId: string;
  eventType: string;
  eventIdentifier: string;
  /** The model's JSON Schema of the whole event (docs/reference/api/event-schemas.md). */
  jsonSchema: Record<string, unknown>;
  /** In how many events each flattened key was present and not null. */
  keyCounts: Record<string, number>;
  total: number;
}

/** Where the spec's schema is in the event's: `properties`, or for identify and group `traits` (else `context.traits`). */
function targetPath(model: CapturedModel, type: PlanEventType): string[] {
  if (type !== 'identify' && type !== 'group') return ['properties'];
  const top = model.jsonSchema.properties as Record<string, unknown> | undefined;
  return top && 'traits' in top ? ['traits'] : ['context', 'traits'];
}

function schemaAt(root: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const segment of path) node = isRecord(node) && isRecord(node.properties) ? node.properties[segment] : undefined;
  return isRecord(node) ? node : undefined;
}

/**
 * A spec from a captured model: the model's schema of the event's properties (or traits), every key present
 * in every event the model counted made required (at the top level of the properties, as the model counts
 * top-level presence; nested keys keep the captured types only). The events the model was made from validate.
 */
export function specOfModel(model: CapturedModel, index: number): EventSpec {
  const type = model.eventType as PlanEventType;
  if (!PLAN_EVENT_TYPES.includes(type)) throw new ValidationError(`body.fromEventModels[${index}]: ${model.eventType} events cannot be planned`);
  const path = targetPath(model, type);
  const captured = schemaAt(model.jsonSchema, path) ?? {};
  const properties = isRecord(captured.properties) ? captured.properties : {};
  const prefix = `${path.join('.')}.`;
  const required = Object.keys(properties)
    .filter((key) => hasEveryEvent(model, `${prefix}${key}`, properties[key]))
    .sort();
  const schema: Record<string, unknown> = { type: 'object', properties, ...(required.length > 0 && { required }) };
  const name = model.eventIdentifier === '' ? undefined : model.eventIdentifier;
  return { type, ...(name !== undefined && { name }), description: `from event model ${model.eventId}`, schema };
}

/** A key present (not null) in every event: counted itself, or, for an object or array, through one of its leaves in every event. */
function hasEveryEvent(model: CapturedModel, key: string, schema: unknown): boolean {
  if (model.total === 0) return false;
  if ((model.keyCounts[key] ?? 0) >= model.total) return true;
  const types = isRecord(schema) ? [schema.type].flat() : [];
  return !types.includes('null') && types.every((t) => t === 'object' || t === 'array') && types.length > 0 && leafAlways(model, key);
}

const leafAlways = (model: CapturedModel, key: string) => Object.entries(model.keyCounts).some(([k, count]) => k.startsWith(`${key}.`) && count >= model.total);
