import { listDestinationDefinitions } from '../../shared/destinations/definitions';
import { DESTINATION_DEFINITION_ROUTES } from '../../shared/contract/function-routes/control-meta';
import { createHandler } from '../../shared/http/handler';

/** The destination types as forms are built from them: each field's name, description and example. */
export const handler = createHandler('destinationDefinitions', DESTINATION_DEFINITION_ROUTES, {
  'GET /destination-definitions': async () => listDestinationDefinitions(),
});
