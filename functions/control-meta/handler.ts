import { buildOpenApi } from '../../shared/contract/openapi';
import { CONTROL_META_ROUTES } from '../../shared/contract/function-routes/control-meta';
import { CONTROL_ROUTES } from '../../shared/contract/function-routes/control-plane';
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler('controlMeta', CONTROL_META_ROUTES, {
  'GET /health': async () => ({ status: 'ok' as const }),
  'GET /openapi.json': async ({ event }) => {
    const host = event.headers?.host;
    return buildOpenApi('control', CONTROL_ROUTES, host ? `http://${host}` : undefined);
  },
});
