import { hash, randomUUID } from 'node:crypto';
import { PayloadTooLargeError, ValidationError } from '../errors';
import { EVENT_TYPES, MAX_EVENT_BYTES, MAX_IDENTIFIER_BYTES, type EventType } from './schemas';

export type IngestedEvent = Record<string, unknown> & { type: EventType; messageId: string; receivedAt: string };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const hasId = (value: unknown) => (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value));

/**
 * A stable id for the person behind an event (the spec's serviceId, here `weirId`): the same for every event
 * with the same userId and anonymousId, as the reference derives its own.
 */
export function weirIdOf(event: Record<string, unknown>): string {
  const digest = hash('md5', `${String(event.userId ?? '')}${String(event.anonymousId ?? '')}`, 'hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
}

/** An event's userId, anonymousId and messageId fit the keys they become part of (MAX_IDENTIFIER_BYTES). */
export function checkIdentifiers(event: Record<string, unknown>, where: string): void {
  for (const field of ['userId', 'anonymousId', 'messageId'] as const) {
    const value = event[field];
    if (typeof value === 'string' && Buffer.byteLength(value) > MAX_IDENTIFIER_BYTES) {
      throw new ValidationError(`${where}.${field}: longer than ${MAX_IDENTIFIER_BYTES} bytes`);
    }
  }
}

/**
 * Checks one event and fills in what the service adds: `messageId` (when missing), `receivedAt`,
 * `request_ip`, `weirId`. Throws for an event the request cannot be accepted with: the whole request is
 * refused, so a request is never stored in part.
 */
export function acceptEvent(raw: unknown, index: number, context: { type?: EventType; receivedAt: string; ip?: string }): IngestedEvent {
  const where = `batch[${index}]`;
  if (!isRecord(raw)) throw new ValidationError(`${where}: event is not a valid event: not an object`);
  const type = context.type ?? raw.type;
  if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError(`${where}: event is not a valid event: unknown type ${JSON.stringify(type ?? null)}`);
  }
  if (!hasId(raw.userId) && !hasId(raw.anonymousId)) {
    throw new ValidationError(`${where}: request neither has anonymousId nor userId`);
  }
  checkIdentifiers(raw, where);
  const size = Buffer.byteLength(JSON.stringify(raw));
  if (size > MAX_EVENT_BYTES) throw new PayloadTooLargeError(`${where}: event is ${size} bytes, over the limit of ${MAX_EVENT_BYTES}`);
  const event = copyOf(raw);
  event.type = type;
  event.messageId = hasId(raw.messageId) ? String(raw.messageId) : randomUUID();
  event.receivedAt = context.receivedAt;
  if (context.ip !== undefined && raw.request_ip === undefined) event.request_ip = context.ip;
  event.weirId = weirIdOf(raw);
  return event as IngestedEvent;
}

/**
 * A shallow copy of an event, its keys in their order. Object.assign copies an event as parsed from JSON
 * some fifty times faster than a spread; a spread only for the event that has a key `__proto__`, which
 * Object.assign would take for the prototype instead of a key.
 */
const copyOf = (raw: Record<string, unknown>): Record<string, unknown> => (Object.hasOwn(raw, '__proto__') ? { ...raw } : Object.assign({}, raw));
