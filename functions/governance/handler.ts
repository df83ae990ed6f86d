import { GOVERNANCE_ROUTES } from '../../shared/contract/function-routes/governance';
import { createHandler } from '../../shared/http/handler';
import { schemaGovernance } from '../../shared/composition/event-schemas';
import { services } from '../../shared/services';

const governance = schemaGovernance(services());

/** Area D, the data governance API (admin Basic auth): what schema capture learnt of the events. */
export const handler = createHandler('governance', GOVERNANCE_ROUTES, {
  'GET /schemas/event-models': async ({ query }) => governance.eventModels(query.WriteKey ?? query.writeKey),
  'GET /schemas/event-versions': async ({ query }) => governance.eventVersions(query.EventID),
  'GET /schemas/event-model/{EventID}/metadata': async ({ params }) => governance.modelMetadata(params.EventID),
  'GET /schemas/event-version/{VersionID}/metadata': async ({ params }) => governance.versionMetadata(params.VersionID),
  'GET /schemas/event-model/{EventID}/key-counts': async ({ params }) => governance.keyCounts(params.EventID),
  'GET /schemas/event-version/{VersionID}/missing-keys': async ({ params }) => governance.missingKeys(params.VersionID),
  'GET /schemas/{VersionID}/missing-keys': async ({ params }) => governance.missingKeys(params.VersionID),
  'GET /schemas/event-model/{EventID}/json-schema': async ({ params }) => governance.jsonSchema(params.EventID),
});
