import { metadataRoutes } from './define';

/** Data plane: service metadata (no authorizer). */
export const DATA_META_ROUTES = metadataRoutes('dataMeta', 'The data plane as OpenAPI 3.1 (ingestion and data governance), generated from the route manifest');
