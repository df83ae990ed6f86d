import { headerOf } from '../../shared/http/authorizer';
import { REGULATIONS_ROUTES } from '../../shared/contract/function-routes/regulations';
import { createHandler } from '../../shared/http/handler';
import { withPaging } from '../../shared/http/paging';
import { HttpReply } from '../../shared/http/reply';
import { regulationService } from '../../shared/composition/regulations';
import { services } from '../../shared/services';

const service = regulationService(services());

export const handler = createHandler('regulations', REGULATIONS_ROUTES, {
  /** 201 with the text Created (the spec), or the created regulations for clients that accept JSON. */
  'POST /v2/regulations': async ({ principal, body, event }) => {
    const created = await service.create(principal.workspaceId, body, headerOf(event.headers, 'idempotency-key'));
    const accept = headerOf(event.headers, 'accept') ?? '';
    return /application\/json/i.test(accept) ? new HttpReply(201, created) : HttpReply.text(201, 'Created');
  },
  'GET /v2/regulations': async ({ principal, query }) => withPaging('/v2/regulations', await service.list(principal.workspaceId, query)),
  'GET /v2/regulations/{id}': async ({ principal, params }) => service.get(principal.workspaceId, params.id),
  'DELETE /v2/regulations/{id}': async ({ principal, params }) => service.cancel(principal.workspaceId, params.id),
});
