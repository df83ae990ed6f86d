import { CredentialService } from '../../shared/domain/credentials/credential-service';
import { createHandler } from '../../shared/http/handler';
import { CredentialRepository } from '../../shared/persistence/credential-repository';
import { getStore } from '../../shared/persistence/store';

const credentials = new CredentialService(new CredentialRepository(getStore()));

export const handler = createHandler('credentials', {
  'GET /credentials': async ({ principal }) => ({ credentials: await credentials.list(principal.workspaceId) }),
  'PUT /credentials/{key}': async ({ principal, params, body }) => ({ credential: await credentials.put(principal.workspaceId, params.key, body) }),
  'DELETE /credentials/{key}': async ({ principal, params }) => {
    await credentials.delete(principal.workspaceId, params.key);
    return { success: true as const };
  },
});
