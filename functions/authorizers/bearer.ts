import { authenticateToken } from '../../shared/domain/auth/authenticate';
import { createAuthorizer, headerOf } from '../../shared/http/authorizer';
import { WorkspaceRepository } from '../../shared/persistence/workspace-repository';
import { repository, services } from '../../shared/services';

const workspaces = repository(services(), WorkspaceRepository);

/** Area B and the /v2 catalog: Bearer personal access token only. */
export const handler = createAuthorizer(async (event) => {
  const principal = await authenticateToken(headerOf(event.headers, 'authorization'), ['bearer'], workspaces);
  return { principalId: principal.email, ...principal };
});
