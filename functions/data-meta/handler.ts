import { buildOpenApi } from '../../shared/contract/openapi';
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler('dataMeta', {
  'GET /health': async () => ({ status: 'ok' as const }),
  'GET /openapi.json': async ({ event }) => {
    const host = event.headers?.host;
    return buildOpenApi('data', host ? `http://${host}` : undefined);
  },
});
