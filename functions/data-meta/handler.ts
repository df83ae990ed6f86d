import { buildOpenApi } from '../../shared/contract/openapi';
import { DATA_META_ROUTES } from '../../shared/contract/function-routes/data-meta';
import { DATA_ROUTES } from '../../shared/contract/function-routes/data-plane';
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler('dataMeta', DATA_META_ROUTES, {
  'GET /health': async () => ({ status: 'ok' as const }),
  'GET /openapi.json': async ({ event }) => {
    const host = event.headers?.host;
    return buildOpenApi('data', DATA_ROUTES, host ? `http://${host}` : undefined);
  },
});
