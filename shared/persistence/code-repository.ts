import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys, type CodeKind } from './keys';
import { queryAll, queryPrefix, type Store, type TransactItem } from './store';

export type { CodeKind };

/** What a head item (the working copy of a transformation or library) holds besides its keys. */
export interface CodeHead {
  id: string;
  versionId: string;
  workspaceId: string;
  name: string;
  description: string;
  code: string;
  language: string;
  createdAt: string;
  updatedAt: string;
  publishedVersionId: string | null;
  /** Import names used by the published revision (transformations), for dependency checks. */
  publishedImports?: string[];
  imports?: string[];
  importName?: string;
  codeVersion?: '1';
  externalId?: string;
}

/** An immutable revision. */
export type CodeRevision = Omit<CodeHead, 'workspaceId' | 'publishedVersionId' | 'publishedImports' | 'externalId'>;

const stripKeys = <T>(item: Record<string, unknown> | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, kind: _k, ...rest } = item;
  return rest as T;
};

/**
 * Transformations and libraries with their revisions. Every change writes a new revision and moves the
 * head in one transaction guarded by the head's current versionId, so concurrent updates each land as
 * their own revision and none is lost.
 */
export class CodeRepository {
  constructor(private readonly store: Store) {}

  async listHeads(kind: CodeKind, workspaceId: string): Promise<CodeHead[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.codePrefix(kind));
    return items.map((item) => stripKeys<CodeHead>(item) as CodeHead);
  }

  async getHead(kind: CodeKind, workspaceId: string, id: string): Promise<CodeHead | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: keys.code(kind, workspaceId, id), ConsistentRead: true }),
    );
    return Item?.kind === kind ? stripKeys<CodeHead>(Item) : undefined;
  }

  async getRevision(kind: CodeKind, workspaceId: string, id: string, versionId: string): Promise<CodeRevision | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: keys.revision(kind, workspaceId, id, versionId) }),
    );
    return stripKeys<CodeRevision>(Item);
  }

  /** Revisions in creation order (version ids are time-sortable), oldest first unless `descending`. */
  async listRevisions(kind: CodeKind, workspaceId: string, id: string, options: { limit: number; descending: boolean }) {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rev)',
        ExpressionAttributeValues: { ':pk': keys.revisionPartition(kind, workspaceId, id), ':rev': keys.revisionPrefix },
        ScanIndexForward: !options.descending,
        Limit: options.limit,
      }),
    );
    return Items.map((item) => stripKeys<CodeRevision>(item) as CodeRevision);
  }

  /** A revision of either kind found by its version id alone. */
  async findRevision(workspaceId: string, versionId: string): Promise<{ kind: CodeKind; revision: CodeRevision } | undefined> {
    const lookup = keys.versionLookup(workspaceId, versionId);
    const [item] = await queryAll(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': lookup.gsi1pk, ':sk': lookup.gsi1sk },
    });
    return item && { kind: item.kind as CodeKind, revision: stripKeys<CodeRevision>(item) as CodeRevision };
  }

  /** The items that create a transformation or library: head, first revision, name guard. */
  createItems(kind: CodeKind, head: CodeHead, revision: CodeRevision, uniqueName: string): TransactItem[] {
    return [
      this.putNew({ ...keys.code(kind, head.workspaceId, head.id), kind, ...head }),
      this.revisionItem(kind, head.workspaceId, revision),
      this.putNew({ ...keys.codeName(kind, head.workspaceId, uniqueName), kind, id: head.id }),
    ];
  }

  /**
   * The items that append a revision and move the head to it, provided the head still points at
   * `expectedVersionId`. `rename` swaps the name guard.
   */
  appendItems(
    kind: CodeKind,
    head: CodeHead,
    revision: CodeRevision,
    expectedVersionId: string,
    rename?: { from: string; to: string },
  ): TransactItem[] {
    const items: TransactItem[] = [
      this.revisionItem(kind, head.workspaceId, revision),
      {
        Put: {
          TableName: this.store.table,
          Item: { ...keys.code(kind, head.workspaceId, head.id), kind, ...head },
          ConditionExpression: 'versionId = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersionId },
        },
      },
    ];
    if (rename && rename.from !== rename.to) {
      items.push(
        { Delete: { TableName: this.store.table, Key: keys.codeName(kind, head.workspaceId, rename.from) } },
        this.putNew({ ...keys.codeName(kind, head.workspaceId, rename.to), kind, id: head.id }),
      );
    }
    return items;
  }

  /** Moves the published pointer of a head to one of its revisions. */
  publishItem(kind: CodeKind, workspaceId: string, id: string, versionId: string, publishedImports?: string[]): TransactItem {
    return {
      Update: {
        TableName: this.store.table,
        Key: keys.code(kind, workspaceId, id),
        UpdateExpression: publishedImports
          ? 'SET publishedVersionId = :v, publishedImports = :imports'
          : 'SET publishedVersionId = :v',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':v': versionId, ...(publishedImports && { ':imports': publishedImports }) },
      },
    };
  }

  /** Deletes the head and its name guard; revisions stay, as the reference product keeps them. */
  deleteItems(kind: CodeKind, head: CodeHead, uniqueName: string): TransactItem[] {
    return [
      {
        Delete: {
          TableName: this.store.table,
          Key: keys.code(kind, head.workspaceId, head.id),
          ConditionExpression: 'versionId = :expected',
          ExpressionAttributeValues: { ':expected': head.versionId },
        },
      },
      { Delete: { TableName: this.store.table, Key: keys.codeName(kind, head.workspaceId, uniqueName) } },
    ];
  }

  async transact(items: TransactItem[]): Promise<void> {
    await this.store.doc.send(new TransactWriteCommand({ TransactItems: items }));
  }

  private revisionItem(kind: CodeKind, workspaceId: string, revision: CodeRevision): TransactItem {
    return this.putNew({
      ...keys.revision(kind, workspaceId, revision.id, revision.versionId),
      ...keys.versionLookup(workspaceId, revision.versionId),
      kind,
      ...revision,
    });
  }

  private putNew(Item: Record<string, unknown>): TransactItem {
    return { Put: { TableName: this.store.table, Item, ConditionExpression: 'attribute_not_exists(pk)' } };
  }
}
