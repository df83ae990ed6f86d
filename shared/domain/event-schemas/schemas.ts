import * as z from 'zod';

/** Data governance API (SPEC §2.8–2.10, §4.D): the shapes of its parameters and answers. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Only a UUID can name a model or version: anything else names nothing, and is never looked up. */
export const isUuid = (id: string) => UUID.test(id);
const uuid = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .regex(UUID, `${field} must be a UUID`)
    .transform((id) => id.toLowerCase());

/**
 * `WriteKey` as documented; `writeKey` (as one revision of the docs spells it) is the same filter. One that
 * names no source, whatever its shape, lists nothing, as the reference answers `[]` for an unknown key.
 */
export const EventModelsQuery = z.object({ WriteKey: z.string().optional(), writeKey: z.string().optional() });
/**
 * EventID is mandatory; whatever else it is, it is a filter, and one that names no model (empty, unknown,
 * not a UUID) matches nothing, as the reference answers `[]` for it.
 */
export const EventVersionsQuery = z.object({
  EventID: z.string({ error: 'Mandatory field: EventID missing' }).transform((id) => id.toLowerCase()),
});
export const EventIdParams = z.object({ EventID: uuid('EventID') });
export const VersionIdParams = z.object({ VersionID: uuid('VersionID') });
/** Key counts answer `{}` for an EventID that names nothing, whatever its shape, as the reference does. */
export const KeyCountsParams = z.object({ EventID: z.string().transform((id) => id.toLowerCase()) });

const Schema = z.record(z.string(), z.string());

export const EventModel = z.object({
  ID: z.number().int(),
  EventID: z.string(),
  WriteKey: z.string(),
  EventType: z.string(),
  EventIdentifier: z.string(),
  CreatedAt: z.string(),
  Schema,
  LastSeen: z.string(),
  TotalCount: z.number().int(),
});

export const EventVersion = z.object({
  ID: z.number().int(),
  VersionID: z.string(),
  EventModelID: z.string(),
  Schema,
  FirstSeen: z.string(),
  LastSeen: z.string(),
  TotalCount: z.number().int(),
});

export const Metadata = z.object({
  SampledEvents: z.array(z.record(z.string(), z.unknown())),
  TotalCount: z.number().int(),
  FrequentValues: z.record(z.string(), z.array(z.object({ Value: z.string(), Frequency: z.number() }))),
});

/**
 * The console's metadata: the reference's, and per counted key how many distinct values it had (exact, or
 * a lower bound once values were dropped from its counter), of how many counted.
 */
export const DetailedMetadata = Metadata.extend({
  DistinctValues: z.record(z.string(), z.object({ Count: z.number().int(), Exact: z.boolean(), Of: z.number().int() })),
});

export const KeyCounts = z.record(z.string(), z.number().int());
export const MissingKeys = z.array(z.string());
export const JsonSchemaDocument = z.record(z.string(), z.unknown());
