import { hash, randomUUID } from 'node:crypto';
import { ValidationError } from '../errors';
import { EVENT_TYPES, MAX_EVENT_BYTES, MAX_IDENTIFIER_BYTES, type EventType } from './schemas';
import { correctClock, type ClockRule } from './clock';
import { isRecord } from '../../destinations/message';

export type IngestedEvent = Record<string, unknown> & { type: EventType; messageId: string; receivedAt: string };

/** An event kept out of a request that was otherwise stored: what it was, and why. */
export interface RefusedEvent {
  index: number;
  reason: string;
  bytes: number;
  type?: string;
  event?: string;
  messageId?: string;
  userId?: string;
  anonymousId?: string;
}

const hasId = (value: unknown) => (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value));

/** The fields of an event that are ids: each a string or a finite number when given (null is none). */
const ID_FIELDS = ['userId', 'anonymousId', 'messageId'] as const;
const isIdType = (value: unknown) =>
  value === undefined || value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** An id's text: a string as it is, a number's digits, nothing for anything else (never String() of an object). */
const idPart = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? value.toString() : '');

/**
 * A stable id for the person behind an event (the spec's serviceId, here `weirId`): the same for every event
 * with the same userId and anonymousId, as the reference derives its own.
 */
export function weirIdOf(event: Record<string, unknown>): string {
  const digest = hash('md5', idPart(event.userId) + idPart(event.anonymousId), 'hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
}

/**
 * An event's userId, anonymousId and messageId are each a string or a finite number (an object, an array or a
 * boolean is refused naming its field: ids are never made text of), and fit the keys they become part of
 * (MAX_IDENTIFIER_BYTES).
 */
export function checkIdentifiers(event: Record<string, unknown>, where: string): void {
  for (const field of ID_FIELDS) {
    const value = event[field];
    if (!isIdType(value)) throw new ValidationError(`${where}.${field}: is neither a string nor a number`);
    if (typeof value === 'string' && Buffer.byteLength(value) > MAX_IDENTIFIER_BYTES) {
      throw new ValidationError(`${where}.${field}: longer than ${MAX_IDENTIFIER_BYTES} bytes`);
    }
  }
}

export interface AcceptContext {
  /** The path's type; a batch's events carry their own. */
  type?: EventType;
  receivedAt: string;
  /** The client's address, as `request_ip` and `context.ip` when the event carries none. */
  ip?: string;
  /** The request's `sentAt`, for events that carry none of their own. */
  sentAt?: unknown;
  clock: ClockRule;
}

/** An event's short description for a refusal (what the source's live events show of it). */
const summaryOf = (raw: Record<string, unknown>) => {
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : undefined);
  return {
    type: text(raw.type),
    event: text(raw.event ?? raw.name),
    messageId: text(raw.messageId),
    userId: text(raw.userId),
    anonymousId: text(raw.anonymousId),
  };
};

/**
 * Checks one event and fills in what the service adds: `messageId` (when missing), `receivedAt`,
 * `request_ip`, `context.ip`, `weirId`, the device clock's correction. Throws for an event the request cannot
 * be accepted with (the whole request is refused, nothing of it stored); an event over MAX_EVENT_BYTES is
 * refused alone, so one oversized event costs only itself.
 */
export function acceptEvent(raw: unknown, index: number, context: AcceptContext): IngestedEvent | RefusedEvent {
  const where = `batch[${index}]`;
  if (!isRecord(raw)) throw new ValidationError(`${where}: event is not a valid event: not an object`);
  const type = context.type ?? raw.type;
  if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError(`${where}: event is not a valid event: unknown type ${JSON.stringify(type ?? null)}`);
  }
  checkIdentifiers(raw, where);
  if (!hasId(raw.userId) && !hasId(raw.anonymousId)) {
    throw new ValidationError(`${where}: request neither has anonymousId nor userId`);
  }
  const size = Buffer.byteLength(JSON.stringify(raw));
  if (size > MAX_EVENT_BYTES) {
    return { index, bytes: size, reason: `event is ${size} bytes, over the limit of ${MAX_EVENT_BYTES}`, ...summaryOf({ ...raw, type }) };
  }
  const event = copyOf(raw);
  // A write key in an event (Segment's clients put it there) is never stored with it, nor sent on.
  if (Object.hasOwn(event, 'writeKey')) delete event.writeKey;
  event.type = type;
  event.messageId = hasId(raw.messageId) ? idPart(raw.messageId) : randomUUID();
  event.receivedAt = context.receivedAt;
  if (context.ip !== undefined) {
    if (raw.request_ip === undefined) event.request_ip = context.ip;
    if (raw.context === undefined) event.context = { ip: context.ip };
    else if (isRecord(raw.context) && raw.context.ip === undefined) event.context = { ...raw.context, ip: context.ip };
  }
  correctClock(event, { receivedAt: context.receivedAt, sentAt: raw.sentAt ?? context.sentAt, rule: context.clock });
  event.weirId = weirIdOf(raw);
  return event as IngestedEvent;
}

export const isRefused = (outcome: IngestedEvent | RefusedEvent): outcome is RefusedEvent =>
  'reason' in outcome && 'bytes' in outcome && !('receivedAt' in outcome);

/**
 * A shallow copy of an event, its keys in their order. Object.assign copies an event as parsed from JSON
 * some fifty times faster than a spread; a spread only for the event that has a key `__proto__`, which
 * Object.assign would take for the prototype instead of a key.
 */
const copyOf = (raw: Record<string, unknown>): Record<string, unknown> => (Object.hasOwn(raw, '__proto__') ? { ...raw } : Object.assign({}, raw));
