import { ALERTS_ROUTES } from '../../shared/contract/function-routes/alerts';
import { alertService } from '../../shared/composition/alerts';
import { createHandler } from '../../shared/http/handler';
import { services } from '../../shared/services';

const service = alertService(services());
const success = { success: true } as const;

export const handler = createHandler('alerts', ALERTS_ROUTES, {
  'POST /v2/alert-rules': async ({ principal, body }) => service.create(principal.workspaceId, body),
  'GET /v2/alert-rules': async ({ principal }) => service.list(principal.workspaceId),
  'GET /v2/alert-rules/{id}': async ({ principal, params }) => service.get(principal.workspaceId, params.id),
  'PATCH /v2/alert-rules/{id}': async ({ principal, params, body }) => service.update(principal.workspaceId, params.id, body),
  'DELETE /v2/alert-rules/{id}': async ({ principal, params }) => {
    await service.delete(principal.workspaceId, params.id);
    return success;
  },
  'GET /v2/alert-notifications': async ({ principal }) => service.notifications(principal.workspaceId),
});
