import * as z from 'zod';
import { SourcePlan } from '../tracking-plans/link';
import { Rule, Rules } from '../rules/schemas';
import { DEFAULT_INGEST_SHARDS, MAX_INGEST_SHARDS } from '../ingestion/shards';

/** Catalog resources (DESIGN.md §3) and the bodies that create and change them. */
const Name = z.string().trim().min(1, 'must not be empty').max(200);
const Id = z.string().min(1).max(64);
const Timestamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() };

/** The most a source's inbound limit may be set to: far above what one source's events can be stored at. */
export const MAX_INBOUND_LIMIT = 1_000_000;
/**
 * Events a second the data plane takes from a source (docs/reference/api/ingestion.md, "Inbound limit"); `null` or absent, the
 * deployment's default (WEIR_SOURCE_INBOUND_LIMIT).
 */
const InboundLimit = z
  .number({ error: 'must be a whole number of events a second, or null for the default' })
  .int('must be a whole number of events a second')
  .min(1, 'must be at least 1 event a second')
  .max(MAX_INBOUND_LIMIT, `must be at most ${MAX_INBOUND_LIMIT.toLocaleString('en')} events a second`)
  .nullable()
  .describe('events a second the data plane takes from the source (bursts of twice as many); null for the default');

/** Partitions a source's events are spread over by user (docs/concepts/ordering-and-sharding.md); they only grow. */
const IngestShards = z
  .number({ error: 'must be a whole number of shards' })
  .int('must be a whole number of shards')
  .min(1, 'must be at least 1')
  .max(MAX_INGEST_SHARDS, `must be at most ${MAX_INGEST_SHARDS}`)
  .describe('partitions the source’s events are spread over by user');

export const Source = z.object({
  id: Id,
  name: z.string(),
  type: z.string(),
  writeKey: z.string(),
  enabled: z.boolean(),
  firstEventAt: z.iso.datetime().optional().describe('when the source’s first event was stored'),
  inboundLimit: InboundLimit.optional(),
  ingestShards: IngestShards.optional().describe(`partitions the source’s events are spread over by user; absent: ${DEFAULT_INGEST_SHARDS}`),
  ingestShardsChange: z
    .object({ previous: z.number().int(), at: z.iso.datetime() })
    .optional()
    .describe('the last change of shards: requests received before `at` went to `previous` shards'),
  trackingPlan: SourcePlan.nullable().optional().describe('the tracking plan version its events are validated against'),
  ...Timestamps,
});
export type Source = z.infer<typeof Source>;

export const SourceCreate = z.strictObject({
  name: Name,
  type: z.string().trim().min(1).max(64).default('HTTP').describe('SDK or channel, free text such as HTTP, node, javascript'),
  enabled: z.boolean().default(true),
  inboundLimit: InboundLimit.optional(),
  ingestShards: IngestShards.optional().describe(`partitions the source’s events are spread over by user (default ${DEFAULT_INGEST_SHARDS})`),
});

export const SourcePatch = z
  .strictObject({ name: Name.optional(), enabled: z.boolean().optional(), inboundLimit: InboundLimit.optional(), ingestShards: IngestShards.optional() })
  .refine((p) => Object.keys(p).length > 0, 'body must change at least one of name, enabled, inboundLimit, ingestShards');

export const Destination = z.object({
  id: Id,
  name: z.string(),
  type: z.string(),
  config: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  transformationId: z.string().optional(),
  ...Timestamps,
});
export type Destination = z.infer<typeof Destination>;

export const DestinationCreate = z.strictObject({
  name: Name,
  type: z.string().min(1).describe('a destination-definition name, such as WEBHOOK'),
  config: z.record(z.string(), z.unknown()).default({}),
  enabled: z.boolean().default(true),
});

export const DestinationPatch = z
  .strictObject({
    name: Name.optional(),
    enabled: z.boolean().optional(),
    config: z.record(z.string(), z.unknown()).optional().describe('keys given replace the stored ones'),
  })
  .refine((p) => Object.keys(p).length > 0, 'body must change at least one of name, enabled, config');

export const Connection = z.object({
  id: Id,
  sourceId: Id,
  destinationId: Id,
  rules: z.array(Rule).default([]).describe('applied in order to each event before the destination’s transformation'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime().optional(),
});
export type Connection = z.infer<typeof Connection>;

export const ConnectionCreate = z.strictObject({ sourceId: Id, destinationId: Id, rules: Rules.default([]) });

export const IdParams = z.object({ id: Id });
export { Success } from '../success';
