import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Sealed } from '../domain/credentials/envelope';
import { keys } from './keys';
import { isConditionFailure, queryPrefix, type TableClient } from './table-client';

export interface StoredCredential extends Sealed {
  key: string;
  isSecret: boolean;
  createdAt: string;
  updatedAt: string;
}

const bytes = (value: unknown) => Buffer.from(value as Uint8Array);

/** Sealed credentials of a workspace and its wrapped data key. Never a plaintext value. */
export class CredentialRepository {
  constructor(private readonly store: TableClient) {}

  async getDataKey(workspaceId: string): Promise<{ wrapped: Buffer; ref: string } | undefined> {
    const { Item } = await this.store.doc.send(new GetCommand({ TableName: this.store.table, Key: keys.credentialDataKey(workspaceId), ConsistentRead: true }));
    return Item && { wrapped: bytes(Item.wrapped), ref: String(Item.ref) };
  }

  /** Keeps the first data key made for a workspace; false when another call made one first. */
  async createDataKey(workspaceId: string, wrapped: Buffer, ref: string): Promise<boolean> {
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: { ...keys.credentialDataKey(workspaceId), wrapped, ref },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async put(workspaceId: string, credential: Omit<StoredCredential, 'createdAt'>): Promise<StoredCredential> {
    const { Attributes } = await this.store.doc.send(
      new UpdateCommand({
        TableName: this.store.table,
        Key: keys.credential(workspaceId, credential.key),
        UpdateExpression:
          'SET #key = :key, isSecret = :secret, iv = :iv, tag = :tag, ciphertext = :ct, updatedAt = :at, createdAt = if_not_exists(createdAt, :at)',
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: {
          ':key': credential.key,
          ':secret': credential.isSecret,
          ':iv': credential.iv,
          ':tag': credential.tag,
          ':ct': credential.ciphertext,
          ':at': credential.updatedAt,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toStored(Attributes!);
  }

  async list(workspaceId: string): Promise<StoredCredential[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.credentialPrefix);
    return items.map(toStored);
  }

  /** False when there was no such credential. */
  async delete(workspaceId: string, key: string): Promise<boolean> {
    try {
      await this.store.doc.send(
        new DeleteCommand({
          TableName: this.store.table,
          Key: keys.credential(workspaceId, key),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function toStored(item: Record<string, unknown>): StoredCredential {
  return {
    key: String(item.key),
    isSecret: item.isSecret === true,
    iv: bytes(item.iv),
    tag: bytes(item.tag),
    ciphertext: bytes(item.ciphertext),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}
