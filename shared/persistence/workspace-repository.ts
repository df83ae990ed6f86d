import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { getItem, putIfAbsent, queryAll, updateIf, type TableClient } from './table-client';
import { ConflictError, NotFoundError } from '../domain/errors';
import type { IssuedToken } from '../domain/auth/tokens';
import type * as ports from '../domain/auth/ports';
import { TokenRecord, type WorkspaceRecord } from '../domain/auth/schemas';

/** The domain owns the shapes of workspaces and tokens; this repository parses what it reads with them. */
export type { TokenRecord, WorkspaceRecord };

/** Workspaces, their users and personal access tokens. */
export class WorkspaceRepository implements ports.WorkspaceRepository {
  constructor(private readonly store: TableClient) {}

  /** Creates a workspace with its first user and token in one transaction. */
  async createWorkspace(workspace: WorkspaceRecord, email: string, token: IssuedToken): Promise<void> {
    const { workspaceId, createdAt } = workspace;
    await this.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: putIfAbsent(this.store.table, { ...keys.workspace(workspaceId), ...workspace }) },
          { Put: { TableName: this.store.table, Item: { ...keys.user(workspaceId, email), workspaceId, email, createdAt } } },
          { Put: { TableName: this.store.table, Item: this.tokenItem(workspaceId, email, token, createdAt) } },
        ],
      }),
    );
  }

  async hasUser(workspaceId: string, email: string): Promise<boolean> {
    return Boolean(await getItem(this.store, keys.user(workspaceId, email)));
  }

  async addToken(workspaceId: string, email: string, token: IssuedToken, createdAt: string): Promise<void> {
    if (!(await this.hasUser(workspaceId, email))) {
      throw new NotFoundError(`user ${email} not found in workspace ${workspaceId}`);
    }
    await this.store.doc.send(new PutCommand(putIfAbsent(this.store.table, this.tokenItem(workspaceId, email, token, createdAt))));
  }

  async findToken(tokenHash: string): Promise<TokenRecord | undefined> {
    const item = await getItem(this.store, keys.token(tokenHash), { ConsistentRead: true });
    return item && TokenRecord.parse(item);
  }

  async listTokens(workspaceId: string): Promise<TokenRecord[]> {
    const items = await queryAll(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.tokensOfWorkspace(workspaceId).gsi1pk },
    });
    return items.map((item) => TokenRecord.parse(item));
  }

  async revokeToken(token: TokenRecord, revokedAt: string): Promise<void> {
    const written = await updateIf(this.store, {
      Key: keys.token(token.tokenHash),
      UpdateExpression: 'SET revokedAt = :at',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':at': revokedAt },
    });
    if (!written) throw new ConflictError(`token ${token.tokenId} is already revoked`);
  }

  private tokenItem(workspaceId: string, email: string, token: IssuedToken, createdAt: string) {
    return {
      ...keys.token(token.tokenHash),
      ...keys.tokensOfWorkspace(workspaceId),
      gsi1sk: token.tokenId,
      tokenId: token.tokenId,
      workspaceId,
      email,
      tokenHash: token.tokenHash,
      createdAt,
    };
  }
}
