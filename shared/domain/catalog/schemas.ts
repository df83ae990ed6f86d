// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';
import { SourcePlan } from '../tracking-plans/link';
import { Rule, Rules } from '../rules/schemas';
import { DEFAULT_INGEST_SHARDS, MAX_INGEST_SHARDS } from '../ingestion/shards';
import { DEFAULT_DEDUPLICATION_WINDOW_HOURS, MAX_DEDUPLICATION_WINDOW_HOURS } from '../ingestion/duplicates';

/** Catalog resources (DESIGN.md §3) and the bodies that create and change them. */
const Name = z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200));
const Id = z.string().check(z.minLength(1), z.maxLength(64));
const Timestamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() };
const Config = () => z.record(z.string(), z.unknown());

/** The most a source's inbound limit may be set to: far above what one source's events can be stored at. */
export const MAX_INBOUND_LIMIT = 1_000_000;
/**
 * Events a second the data plane takes from a source (docs/reference/api/ingestion.md, "Inbound limit"); `null` or absent, the
 * deployment's default (WEIR_SOURCE_INBOUND_LIMIT).
 */
const InboundLimit = z
  .nullable(
    z
      .number({ error: 'must be a whole number of events a second, or null for the default' })
      .check(
        z.int('must be a whole number of events a second'),
        z.gte(1, 'must be at least 1 event a second'),
        z.lte(MAX_INBOUND_LIMIT, `must be at most ${MAX_INBOUND_LIMIT.toLocaleString('en')} events a second`),
      ),
  )
  .check(z.describe('events a second the data plane takes from the source (bursts of twice as many); null for the default'));

/** Partitions a source's events are spread over by user (docs/concepts/ordering-and-sharding.md); they only grow. */
const IngestShards = z
  .number({ error: 'must be a whole number of shards' })
  .check(
    z.int('must be a whole number of shards'),
    z.gte(1, 'must be at least 1'),
    z.lte(MAX_INGEST_SHARDS, `must be at most ${MAX_INGEST_SHARDS}`),
    z.describe('partitions the source’s events are spread over by user'),
  );

/** How long a source remembers the messageIds it accepted (docs/concepts/deduplication.md). */
const DeduplicationWindowHours = z
  .number({ error: 'must be a whole number of hours' })
  .check(
    z.int('must be a whole number of hours'),
    z.gte(1, 'must be at least 1'),
    z.lte(MAX_DEDUPLICATION_WINDOW_HOURS, `must be at most ${MAX_DEDUPLICATION_WINDOW_HOURS} (7 days)`),
    z.describe(`hours an event's messageId is remembered: a later event with it is a duplicate, not delivered (default ${DEFAULT_DEDUPLICATION_WINDOW_HOURS})`),
  );

export const Source = z.object({
  id: Id,
  name: z.string(),
  type: z.string(),
  writeKey: z.string(),
  enabled: z.boolean(),
  firstEventAt: z.optional(z.iso.datetime()).check(z.describe('when the source’s first event was stored')),
  inboundLimit: z.optional(InboundLimit),
  ingestShards: z.optional(IngestShards).check(z.describe(`partitions the source’s events are spread over by user; absent: ${DEFAULT_INGEST_SHARDS}`)),
  deduplicationWindowHours: z.optional(DeduplicationWindowHours),
  ingestShardsChange: z
    .optional(z.object({ previous: z.number().check(z.int()), at: z.iso.datetime() }))
    .check(z.describe('the last change of shards: requests received before `at` went to `previous` shards')),
  trackingPlan: z.optional(z.nullable(SourcePlan)).check(z.describe('the tracking plan version its events are validated against')),
  ...Timestamps,
});
export type Source = z.infer<typeof Source>;

export const SourceCreate = z.strictObject({
  name: Name,
  type: z
    ._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(64)), 'HTTP')
    .check(z.describe('SDK or channel, free text such as HTTP, node, javascript')),
  enabled: z._default(z.boolean(), true),
  inboundLimit: z.optional(InboundLimit),
  ingestShards: z.optional(IngestShards).check(z.describe(`partitions the source’s events are spread over by user (default ${DEFAULT_INGEST_SHARDS})`)),
  deduplicationWindowHours: z.optional(DeduplicationWindowHours),
});

export const SourcePatch = z
  .strictObject({
    name: z.optional(Name),
    enabled: z.optional(z.boolean()),
    inboundLimit: z.optional(InboundLimit),
    ingestShards: z.optional(IngestShards),
    deduplicationWindowHours: z.optional(DeduplicationWindowHours),
  })
  .check(z.refine((p) => Object.keys(p).length > 0, 'body must change at least one of name, enabled, inboundLimit, ingestShards, deduplicationWindowHours'));

export const Destination = z.object({
  id: Id,
  name: z.string(),
  type: z.string(),
  config: Config(),
  enabled: z.boolean(),
  transformationId: z.optional(z.string()),
  ...Timestamps,
});
export type Destination = z.infer<typeof Destination>;

export const DestinationCreate = z.strictObject({
  name: Name,
  type: z.string().check(z.minLength(1), z.describe('a destination-definition name, such as WEBHOOK')),
  config: z._default(Config(), {}),
  enabled: z._default(z.boolean(), true),
});

export const DestinationPatch = z
  .strictObject({
    name: z.optional(Name),
    enabled: z.optional(z.boolean()),
    config: z.optional(Config()).check(z.describe('keys given replace the stored ones')),
  })
  .check(z.refine((p) => Object.keys(p).length > 0, 'body must change at least one of name, enabled, config'));

export const Connection = z.object({
  id: Id,
  sourceId: Id,
  destinationId: Id,
  rules: z._default(z.array(Rule), []).check(z.describe('applied in order to each event before the destination’s transformation')),
  createdAt: z.iso.datetime(),
  updatedAt: z.optional(z.iso.datetime()),
});
export type Connection = z.infer<typeof Connection>;

export const ConnectionCreate = z.strictObject({ sourceId: Id, destinationId: Id, rules: z._default(Rules, []) });

export const IdParams = z.object({ id: Id });
export { Success } from '../success';
