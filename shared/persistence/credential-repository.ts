import type * as ports from '../domain/credentials/ports';
import { isCredentialRef, StoredCredential, WrappedDataKey } from '../domain/credentials/schemas';
import { keys } from './keys';
import { deleteIf, getItem, putIf, putIfAbsent, queryPrefix, updateItem, type TableClient } from './table-client';

/** Sealed credentials of a workspace and its wrapped data key. Never a plaintext value. Items are parsed with the domain's zod schemas. */
export class CredentialRepository implements ports.CredentialRepository {
  constructor(private readonly store: TableClient) {}

  async getDataKey(workspaceId: string): Promise<WrappedDataKey | undefined> {
    const item = await getItem(this.store, keys.credentialDataKey(workspaceId), { ConsistentRead: true });
    return item && WrappedDataKey.parse(item);
  }

  /** Keeps the first data key made for a workspace; false when another call made one first. */
  async createDataKey(workspaceId: string, wrapped: Buffer, ref: string): Promise<boolean> {
    return putIf(this.store, putIfAbsent(this.store.table, { ...keys.credentialDataKey(workspaceId), wrapped, ref }));
  }

  async put(workspaceId: string, credential: Omit<StoredCredential, 'createdAt'>): Promise<StoredCredential> {
    const { Attributes } = await updateItem(this.store, {
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
    });
    return StoredCredential.parse(Attributes);
  }

  async list(workspaceId: string): Promise<StoredCredential[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.credentialPrefix);
    return items.map((item) => StoredCredential.parse(item));
  }

  /** False when there was no such credential. */
  async delete(workspaceId: string, key: string): Promise<boolean> {
    return deleteIf(this.store, {
      Key: keys.credential(workspaceId, key),
      ConditionExpression: 'attribute_exists(pk)',
    });
  }

  /** Read from the connections' rules as stored: their ids and the credentials their hash rules name. */
  async saltUses(workspaceId: string): Promise<ReadonlyMap<string, string[]>> {
    const uses = new Map<string, string[]>();
    const connections = await queryPrefix<{ id: string; rules?: { type: string; saltCredential?: string }[] }>(
      this.store,
      keys.workspacePartition(workspaceId),
      keys.connectionPrefix,
    );
    for (const { id, rules = [] } of connections)
      for (const { type, saltCredential: key } of rules)
        if (type === 'hash' && key && !uses.get(key)?.includes(id)) uses.set(key, [...(uses.get(key) ?? []), id]);
    return uses;
  }

  /** Read from the destinations' configurations as stored: the fields that hold a reference to a credential. */
  async destinationUses(workspaceId: string): Promise<ReadonlyMap<string, ports.DestinationUse[]>> {
    const uses = new Map<string, ports.DestinationUse[]>();
    const destinations = await queryPrefix<{ id: string; name: string; config?: Record<string, unknown> }>(
      this.store,
      keys.workspacePartition(workspaceId),
      keys.destinationPrefix,
    );
    for (const { id, name, config = {} } of destinations)
      for (const [field, value] of Object.entries(config))
        if (isCredentialRef(value)) uses.set(value.credential, [...(uses.get(value.credential) ?? []), { id, name, field }]);
    return uses;
  }
}
