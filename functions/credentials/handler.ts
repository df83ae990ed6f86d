import { createHandler } from '../../shared/http/handler';
import { services } from '../../shared/services';

const { credentials } = services();

export const handler = createHandler('credentials', {
  'GET /credentials': async ({ principal }) => ({ credentials: await credentials.list(principal.workspaceId) }),
  'PUT /credentials/{key}': async ({ principal, params, body }) => ({
    credential: await credentials.put(principal.workspaceId, params.key, body),
  }),
  'DELETE /credentials/{key}': async ({ principal, params }) => {
    await credentials.delete(principal.workspaceId, params.key);
    return { success: true as const };
  },
});
