import { z } from 'zod';

/** Ingestion (DESIGN §3, reference §4): the bodies SDKs send to the data plane. */
export const EVENT_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The field's documented limits: 32 KB per event, 4 MB per request. */
export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/**
 * An event's userId, anonymousId and messageId: at most this many bytes (UTF-8). Each becomes part of a
 * DynamoDB sort key (suppression, delivery retries), whose limit is 1,024 bytes; and a userId Weir
 * accepts can always be regulated (a regulation's userId has the same bound).
 */
export const MAX_IDENTIFIER_BYTES = 1000;

const Event = z.record(z.string(), z.unknown(), { error: 'event is not a valid event: not an object' });

/** One event (POST /v1/track etc.); its type comes from the path. */
export const SingleEventBody = Event;

/** POST /v1/batch: `{batch: [...], writeKey?, sentAt?, context?}` as the Node SDKs send it. */
export const BatchBody = z.looseObject({
  batch: z.array(z.unknown(), { error: 'batch must be an array of events' }).min(1, 'empty batch payload'),
  writeKey: z.string().optional(),
  sentAt: z.unknown().optional(),
});

export const IngestParams = z.object({ type: z.enum([...EVENT_TYPES, 'batch'], { error: 'unknown event type' }) });
