import { authenticateAdmin } from '../../shared/domain/auth/authenticate';
import { UnauthorizedError } from '../../shared/domain/errors';
import { createAuthorizer, headerOf } from '../../shared/http/authorizer';

/** Area D: the data plane's admin user and password; a refusal answers 400 (the plane's gateway response). */
export const handler = createAuthorizer(async (event) => {
  const user = process.env.WEIR_ADMIN_USER;
  const password = process.env.WEIR_ADMIN_PASSWORD;
  if (!user || !password) throw new UnauthorizedError('data-plane admin credentials are not configured');
  authenticateAdmin(headerOf(event.headers, 'authorization'), { user, password });
  return { principalId: user };
});
