import { UnauthorizedError } from '../errors';
import { hashSecret, matchesHash, sameSecret } from './tokens';
import type { WorkspaceRepository } from './ports';

/** Who is calling: the authorizers pass this on to the handlers as the request's authorizer context. */
export interface Principal {
  workspaceId: string;
  email: string;
  tokenId: string;
}

export type CredentialScheme = 'basic' | 'bearer';

/** The texts clients see; the reference product answers bad credentials with exactly this. */
export const INVALID_AUTHORIZATION = 'Invalid Authorization Header';

export type ParsedAuthorization = { scheme: 'basic'; user: string; password: string } | { scheme: 'bearer'; token: string };

/** Splits an Authorization header; throws UnauthorizedError naming what is wrong with its shape. */
export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  if (!header?.trim()) throw new UnauthorizedError('Authorization header is missing');
  const [scheme = '', ...rest] = header.trim().split(/\s+/);
  const value = rest.join(' ');
  switch (scheme.toLowerCase()) {
    case 'basic': {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (!value || colon < 0) throw new UnauthorizedError(INVALID_AUTHORIZATION);
      return { scheme: 'basic', user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    case 'bearer':
      if (!value) throw new UnauthorizedError(INVALID_AUTHORIZATION);
      return { scheme: 'bearer', token: value };
    default:
      throw new UnauthorizedError(`Authorization scheme ${scheme} is not supported; use Basic or Bearer`);
  }
}

/**
 * Personal-access-token authentication. Basic carries `email:token` and the email must be the token's owner;
 * Bearer carries the token alone. Revoked and unknown tokens are refused alike.
 */
export async function authenticateToken(
  header: string | undefined,
  accepted: readonly CredentialScheme[],
  workspaces: Pick<WorkspaceRepository, 'findToken'>,
): Promise<Principal> {
  const credentials = parseAuthorization(header);
  if (!accepted.includes(credentials.scheme)) {
    throw new UnauthorizedError(`Authorization scheme ${credentials.scheme} is not accepted here; use ${accepted.join(' or ')}`);
  }
  const token = credentials.scheme === 'basic' ? credentials.password : credentials.token;
  const record = token ? await workspaces.findToken(hashSecret(token)) : undefined;
  const tokenMatches = record !== undefined && matchesHash(token, record.tokenHash);
  const emailMatches = credentials.scheme === 'bearer' || (record !== undefined && sameSecret(credentials.user.trim().toLowerCase(), record.email));
  if (!record || !tokenMatches || !emailMatches || record.revokedAt) {
    throw new UnauthorizedError(INVALID_AUTHORIZATION);
  }
  return { workspaceId: record.workspaceId, email: record.email, tokenId: record.tokenId };
}

/** The data plane's admin Basic credentials (area D), refused with the field's own texts. */
export function authenticateAdmin(header: string | undefined, admin: { user: string; password: string }): void {
  if (!/^\s*basic\s+\S/i.test(header ?? '')) throw new UnauthorizedError('Basic auth credentials missing');
  const credentials = (() => {
    try {
      return parseAuthorization(header);
    } catch {
      throw new UnauthorizedError('Invalid admin credentials');
    }
  })();
  if (credentials.scheme !== 'basic' || !sameSecret(credentials.user, admin.user) || !sameSecret(credentials.password, admin.password)) {
    throw new UnauthorizedError('Invalid admin credentials');
  }
}

/**
 * Write keys Weir generates are 27 characters; anything longer than this names no source and is never looked
 * up (it could not even be a DynamoDB key: at most 2,048 bytes).
 */
export const MAX_WRITE_KEY_BYTES = 200;
export const couldBeWriteKey = (writeKey: string): boolean => Buffer.byteLength(writeKey) <= MAX_WRITE_KEY_BYTES;
