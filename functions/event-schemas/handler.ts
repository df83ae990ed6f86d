import { EVENT_SCHEMAS_ROUTES } from '../../shared/contract/function-routes/event-schemas';
import { createHandler } from '../../shared/http/handler';
import { workspaceSchemas } from '../../shared/composition/event-schemas';
import { services } from '../../shared/services';

const schemas = workspaceSchemas(services());

/** The control plane's read routes over the event schemas of the caller's own sources (the console reads them). */
export const handler = createHandler('eventSchemas', EVENT_SCHEMAS_ROUTES, {
  'GET /v2/sources/{id}/event-models': async ({ params, principal }) => schemas.models(principal.workspaceId, params.id),
  'GET /v2/event-models/{EventID}/versions': async ({ params, principal }) => schemas.versions(principal.workspaceId, params.EventID),
  'GET /v2/event-models/{EventID}/metadata': async ({ params, principal }) => schemas.modelMetadata(principal.workspaceId, params.EventID),
  'GET /v2/event-models/{EventID}/key-counts': async ({ params, principal }) => schemas.keyCounts(principal.workspaceId, params.EventID),
  'GET /v2/event-models/{EventID}/json-schema': async ({ params, principal }) => schemas.jsonSchema(principal.workspaceId, params.EventID),
  'GET /v2/event-versions/{VersionID}/metadata': async ({ params, principal }) => schemas.versionMetadata(principal.workspaceId, params.VersionID),
  'GET /v2/event-versions/{VersionID}/missing-keys': async ({ params, principal }) => schemas.missingKeys(principal.workspaceId, params.VersionID),
});
