import * as z from 'zod';
import { IdParams } from '../../domain/catalog/schemas';
import {
  EventIdParams,
  EventModel,
  EventVersion,
  JsonSchemaDocument,
  KeyCounts,
  DetailedMetadata,
  MissingKeys,
  VersionIdParams,
} from '../../domain/event-schemas/schemas';
import { route } from './define';

/** Control plane: event schemas of the workspace's own sources (Bearer; the data plane's admin API sees all). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const EVENT_SCHEMAS_ROUTES = [
  route({ method: 'GET', path: '/v2/sources/{id}/event-models', fn: 'eventSchemas', auth: 'bearer', summary: "The event models of one of the workspace's sources, in row order", params: IdParams, response: z.array(EventModel) }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/versions', fn: 'eventSchemas', auth: 'bearer', summary: 'The versions of an event model', params: EventIdParams, response: z.array(EventVersion) }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/metadata', fn: 'eventSchemas', auth: 'bearer', summary: "An event model's sampled events, count, frequent values and each key's distinct values", params: EventIdParams, response: DetailedMetadata }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/key-counts', fn: 'eventSchemas', auth: 'bearer', summary: 'In how many events of the model each key was present (and not null)', params: EventIdParams, response: KeyCounts }),
  route({ method: 'GET', path: '/v2/event-models/{EventID}/json-schema', fn: 'eventSchemas', auth: 'bearer', summary: 'The event model as a JSON Schema (draft 2020-12)', params: EventIdParams, response: JsonSchemaDocument }),
  route({ method: 'GET', path: '/v2/event-versions/{VersionID}/metadata', fn: 'eventSchemas', auth: 'bearer', summary: "An event version's sampled events, count, frequent values and each key's distinct values", params: VersionIdParams, response: DetailedMetadata }),
  route({ method: 'GET', path: '/v2/event-versions/{VersionID}/missing-keys', fn: 'eventSchemas', auth: 'bearer', summary: "Keys of the model's schema that this version's events lack", params: VersionIdParams, response: MissingKeys }),
] as const;
