import * as z from 'zod';
import {
  EventIdParams,
  EventModel,
  EventModelsQuery,
  EventVersion,
  EventVersionsQuery,
  JsonSchemaDocument,
  KeyCounts,
  KeyCountsParams,
  Metadata,
  MissingKeys,
  VersionIdParams,
} from '../../domain/event-schemas/schemas';
import { route } from './define';

/** Data plane: data governance (admin Basic; a refusal answers 400). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const GOVERNANCE_ROUTES = [
  route({ method: 'GET', path: '/schemas/event-models', fn: 'governance', auth: 'admin', summary: 'Event models, in row order; WriteKey limits them to one source', query: EventModelsQuery, response: z.array(EventModel) }),
  route({ method: 'GET', path: '/schemas/event-versions', fn: 'governance', auth: 'admin', summary: 'The versions of an event model; [] for an EventID that names no model', query: EventVersionsQuery, response: z.array(EventVersion) }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/metadata', fn: 'governance', auth: 'admin', summary: "An event model's sampled events, count and frequent values", params: EventIdParams, response: Metadata }),
  route({ method: 'GET', path: '/schemas/event-version/{VersionID}/metadata', fn: 'governance', auth: 'admin', summary: "An event version's sampled events, count and frequent values", params: VersionIdParams, response: Metadata }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/key-counts', fn: 'governance', auth: 'admin', summary: 'In how many events of the model each key was present (and not null); {} for an EventID that names no model', params: KeyCountsParams, response: KeyCounts }),
  route({ method: 'GET', path: '/schemas/event-version/{VersionID}/missing-keys', fn: 'governance', auth: 'admin', summary: "Keys of the model's schema that this version's events lack", params: VersionIdParams, response: MissingKeys }),
  route({ method: 'GET', path: '/schemas/{VersionID}/missing-keys', fn: 'governance', auth: 'admin', summary: 'The same, at the short path of the published example', params: VersionIdParams, response: MissingKeys }),
  route({ method: 'GET', path: '/schemas/event-model/{EventID}/json-schema', fn: 'governance', auth: 'admin', summary: 'The event model as a JSON Schema (draft 2020-12) its events validate against', params: EventIdParams, response: JsonSchemaDocument }),
] as const;
