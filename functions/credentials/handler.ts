import { CREDENTIALS_ROUTES } from '../../shared/contract/function-routes/credentials';
import { createHandler } from '../../shared/http/handler';
import { credentialService } from '../../shared/composition/credentials';
import { services } from '../../shared/services';

const credentials = credentialService(services());

export const handler = createHandler('credentials', CREDENTIALS_ROUTES, {
  'GET /credentials': async ({ principal }) => ({ credentials: await credentials.list(principal.workspaceId) }),
  'PUT /credentials/{key}': async ({ principal, params, body }) => ({
    credential: await credentials.put(principal.workspaceId, params.key, body),
  }),
  'DELETE /credentials/{key}': async ({ principal, params }) => {
    await credentials.delete(principal.workspaceId, params.key);
    return { success: true as const };
  },
});
