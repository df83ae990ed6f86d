import { REPLAYS_ROUTES } from '../../shared/contract/function-routes/replays';
import { createHandler } from '../../shared/http/handler';
import { replayService } from '../../shared/composition/replays';
import { services } from '../../shared/services';

const service = replayService(services());

export const handler = createHandler('replays', REPLAYS_ROUTES, {
  'POST /v2/replays': async ({ principal, body }) => service.create(principal.workspaceId, body),
  'GET /v2/replays': async ({ principal }) => service.list(principal.workspaceId),
  'GET /v2/replays/{id}': async ({ principal, params }) => service.get(principal.workspaceId, params.id),
  'POST /v2/replays/{id}/cancel': async ({ principal, params }) => service.cancel(principal.workspaceId, params.id),
});
