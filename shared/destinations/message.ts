import { instrumentationError } from './errors';
import type { Message } from './types';

/** Reading events the way destination transforms need; shared so every type reads them alike. */

export const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A value at a dotted path, e.g. get(message, 'context.traits.email'). */
export function get(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** The first of the paths that holds a value other than undefined, null or "". */
export function firstOf(message: Message, ...paths: string[]): unknown {
  for (const path of paths) {
    const value = get(message, path);
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return undefined;
}

/** A string form of an id (numbers as their text); undefined for anything else or blank. */
export function idText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A finite number, given as a number or as numeric text; undefined for anything else. */
export function numberOf(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** Text without its surrounding spaces; undefined for anything but a string with something besides spaces. */
export const textOf = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** A track event's name without its surrounding spaces; an event without one is refused. */
export function trackEventName(message: Message): string {
  const event = textOf(message.event);
  if (!event) throw instrumentationError('a track event needs an event name');
  return event;
}

/** The fields that hold a value: those undefined, null or "" are left out. */
export const compact = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export const userIdOf = (message: Message) => idText(firstOf(message, 'userId', 'context.traits.userId', 'traits.userId'));
export const anonymousIdOf = (message: Message) => idText(message.anonymousId);

/** Traits of identify (top level, as SDKs send them) and of every other type (context.traits), merged. */
export function traitsOf(message: Message): Record<string, unknown> {
  const context = get(message, 'context.traits');
  const top = message.traits;
  return { ...(isRecord(context) ? context : {}), ...(isRecord(top) ? top : {}) };
}

export const propertiesOf = (message: Message): Record<string, unknown> => (isRecord(message.properties) ? message.properties : {});

/** When the event happened: timestamp, else originalTimestamp, else receivedAt, else sentAt. */
export function eventTime(message: Message): Date | undefined {
  const value = firstOf(message, 'timestamp', 'originalTimestamp', 'receivedAt', 'sentAt');
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * A page or screen as a custom event, the naming the common analytics integrations use, so one user's pages read
 * alike across destinations: "Viewed <name> Page|Screen" ("Viewed Page|Screen" without a name), the name kept
 * among the properties. `name` is the event's name unless the destination reads it otherwise.
 */
export function viewEvent(message: Message, name: unknown = message.name): { event: string; properties: Record<string, unknown> } {
  const named = typeof name === 'string' && name !== '' ? name : undefined;
  const kind = message.type === 'page' ? 'Page' : 'Screen';
  return { event: named ? `Viewed ${named} ${kind}` : `Viewed ${kind}`, properties: { ...propertiesOf(message), ...(named && { name: named }) } };
}

/**
 * An object flattened to dotted keys, arrays as `[i]`, every leaf as text: the reference webhook's GET
 * query parameters ({a:{b:[1,2]}} → {"a.b[0]":"1","a.b[1]":"2"}).
 */
export function flatten(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) {
    if (value.length === 0 && prefix) out[prefix] = '';
    value.forEach((item, i) => flatten(item, `${prefix}[${i}]`, out));
  } else if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0 && prefix) out[prefix] = '';
    for (const [key, item] of entries) flatten(item, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) {
    out[prefix] = value === null || value === undefined ? '' : String(value);
  }
  return out;
}

/** A base URL without trailing slashes, so `${base}/path` never doubles them. */
export const trimBase = (url: string) => url.replace(/\/+$/, '');
