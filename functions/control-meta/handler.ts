import { buildOpenApi } from '../../shared/contract/openapi';
import { listDestinationDefinitions } from '../../shared/destinations/registry';
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler('controlMeta', {
  'GET /health': async () => ({ status: 'ok' as const }),
  'GET /openapi.json': async ({ event }) => {
    const host = event.headers?.host;
    return buildOpenApi('control', host ? `http://${host}` : undefined);
  },
  'GET /destination-definitions': async () => listDestinationDefinitions(),
});
