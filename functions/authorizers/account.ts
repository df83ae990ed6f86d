import { authenticateToken } from '../../shared/domain/auth/authenticate';
import { createAuthorizer, headerOf } from '../../shared/http/authorizer';
import { WorkspaceRepository } from '../../shared/persistence/workspace-repository';
import { repository, services } from '../../shared/services';

const workspaces = repository(services(), WorkspaceRepository);

/** Areas A and C: Basic `email:token`, or Bearer `token` as newer clients send. */
export const handler = createAuthorizer(async (event) => {
  const principal = await authenticateToken(headerOf(event.headers, 'authorization'), ['basic', 'bearer'], workspaces);
  return { principalId: principal.email, ...principal };
});
