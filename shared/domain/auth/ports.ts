import type { TokenRecord, WorkspaceRecord } from './schemas';
import type { IssuedToken } from './tokens';

/** Where workspaces, their users and their personal access tokens are kept (never a token's value). */
export interface WorkspaceRepository {
  /** The workspace, its first user and that user's first token, all or nothing. */
  createWorkspace(workspace: WorkspaceRecord, email: string, token: IssuedToken): Promise<void>;
  /** Another token for a user of the workspace; NotFoundError when there is no such user. */
  addToken(workspaceId: string, email: string, token: IssuedToken, createdAt: string): Promise<void>;
  findToken(tokenHash: string): Promise<TokenRecord | undefined>;
  listTokens(workspaceId: string): Promise<TokenRecord[]>;
  /** ConflictError when it is revoked already. */
  revokeToken(token: TokenRecord, revokedAt: string): Promise<void>;
}
