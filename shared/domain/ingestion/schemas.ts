// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';

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

/** POST /v1/batch: `{batch: [...], writeKey?, sentAt?, context?}` as the SDKs send it. */
export const BatchBody = z.looseObject({
  batch: z.array(z.unknown(), { error: 'batch must be an array of events' }).check(z.minLength(1, 'empty batch payload')),
  writeKey: z.optional(z.string()),
  sentAt: z.optional(z.unknown()),
});

/**
 * What each ingestion path takes: the six types and `batch`, Segment's one-letter paths for the same (its
 * browser and mobile clients post there), and `/v1/import` (Segment's batch import).
 */
export const PATH_TYPES = {
  identify: 'identify',
  track: 'track',
  page: 'page',
  screen: 'screen',
  group: 'group',
  alias: 'alias',
  batch: 'batch',
  i: 'identify',
  t: 'track',
  p: 'page',
  s: 'screen',
  g: 'group',
  a: 'alias',
  b: 'batch',
  import: 'batch',
} as const satisfies Record<string, EventType | 'batch'>;
export type IngestPath = keyof typeof PATH_TYPES;
const SEGMENT_CLIENT_PATHS: ReadonlySet<string> = new Set(['i', 't', 'p', 's', 'g', 'a', 'b']);
/** Segment's browser and mobile clients post to the one-letter paths; their `timestamp` is the device's clock. */
export const isSegmentClientPath = (path: IngestPath): boolean => SEGMENT_CLIENT_PATHS.has(path);

export const IngestParams = z.object({
  type: z.enum(Object.keys(PATH_TYPES) as [IngestPath, ...IngestPath[]], { error: 'unknown event type' }),
});

/** `navigator.sendBeacon` cannot set headers: the write key comes in the query. */
export const WriteKeyQuery = z.looseObject({ writeKey: z.optional(z.string().check(z.maxLength(1000))) });

/** GET /pixel/v1/{track,page}: an email open or a page without JavaScript. */
export const PixelParams = z.object({ type: z.enum(['track', 'page'], { error: 'a pixel is a track or a page' }) });
export const PixelQuery = z.looseObject({
  writeKey: z.optional(z.string().check(z.maxLength(1000))),
  anonymousId: z.optional(z.string()),
  userId: z.optional(z.string()),
  event: z.optional(z.string()).check(z.describe('the track event’s name')),
  name: z.optional(z.string()).check(z.describe('the page’s name')),
});
