import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DestinationTakenError, NameTakenError, StaleHeadError } from '../domain/errors';
import { keys } from './keys';
import { getItem, putIfAbsent, queryAll, queryPage, queryPrefix, refusedItems, type TableClient, type TransactItem } from './table-client';
import type * as ports from '../domain/transformations/ports';
import { UserCodeHead, UserCodeKind, UserCodeRevision } from '../domain/transformations/schemas';

/** The domain owns the shapes of heads and revisions; this repository parses what it reads with them. */
export type { UserCodeHead, UserCodeKind, UserCodeRevision };

type ConnectionChange = ports.ConnectionChange;

/** A transaction item with what it is, so a refused condition can be named. */
type Labelled = [role: 'head' | 'revision' | 'name' | 'destination' | 'published', item: TransactItem, destinationId?: string];

/**
 * Transformations and libraries with their revisions. Every change writes a new revision and moves the
 * head in one transaction guarded by the head's current versionId, so concurrent updates each land as
 * their own revision and none is lost.
 */
export class UserCodeRepository implements ports.UserCodeRepository {
  constructor(private readonly store: TableClient) {}

  async listHeads(kind: UserCodeKind, workspaceId: string): Promise<UserCodeHead[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.codePrefix(kind));
    return items.map((item) => UserCodeHead.parse(item));
  }

  async getHead(kind: UserCodeKind, workspaceId: string, id: string): Promise<UserCodeHead | undefined> {
    const item = await getItem(this.store, keys.code(kind, workspaceId, id), { ConsistentRead: true });
    return item?.kind === kind ? UserCodeHead.parse(item) : undefined;
  }

  async getRevision(kind: UserCodeKind, workspaceId: string, id: string, versionId: string): Promise<UserCodeRevision | undefined> {
    const item = await getItem(this.store, keys.revision(kind, workspaceId, id, versionId));
    return item && UserCodeRevision.parse(item);
  }

  /** Revisions in creation order (version ids are time-sortable), oldest first unless `descending`. */
  async listRevisions(kind: UserCodeKind, workspaceId: string, id: string, options: { limit: number; descending: boolean }): Promise<UserCodeRevision[]> {
    const items = await queryPage(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rev)',
      ExpressionAttributeValues: { ':pk': keys.revisionPartition(kind, workspaceId, id), ':rev': keys.revisionPrefix },
      ScanIndexForward: !options.descending,
      Limit: options.limit,
    });
    return items.map((item) => UserCodeRevision.parse(item));
  }

  /** A revision of either kind found by its version id alone. */
  async findRevision(workspaceId: string, versionId: string): Promise<{ kind: UserCodeKind; revision: UserCodeRevision } | undefined> {
    const lookup = keys.versionLookup(workspaceId, versionId);
    const [item] = await queryAll(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': lookup.gsi1pk, ':sk': lookup.gsi1sk },
    });
    return item && { kind: UserCodeKind.parse(item.kind), revision: UserCodeRevision.parse(item) };
  }

  /**
   * Creates a transformation or library: head, first revision and name guard, and (a transformation
   * published on create) its destinations, in one transaction. Throws NameTakenError or DestinationTakenError.
   */
  async create(kind: UserCodeKind, head: UserCodeHead, revision: UserCodeRevision, uniqueName: string, connections?: ConnectionChange): Promise<void> {
    const items: Labelled[] = [
      ['head', this.putNew({ ...keys.code(kind, head.workspaceId, head.id), kind, ...head })],
      ['revision', this.revisionItem(kind, head.workspaceId, revision)],
      ['name', this.putNew({ ...keys.codeName(kind, head.workspaceId, uniqueName), kind, id: head.id })],
      ...this.connectionItems(head.workspaceId, head.id, connections),
    ];
    await this.write(items, { kind, id: head.id, uniqueName });
  }

  /**
   * Appends a revision and moves the head to it, provided the head still points at `expectedVersionId`
   * (StaleHeadError otherwise: a concurrent write won); a rename moves the name guard, `connections` the
   * destinations. Throws NameTakenError or DestinationTakenError too.
   */
  async appendRevision(
    kind: UserCodeKind,
    head: UserCodeHead,
    revision: UserCodeRevision,
    expectedVersionId: string,
    options: { rename?: { from: string; to: string }; connections?: ConnectionChange } = {},
  ): Promise<void> {
    const items: Labelled[] = [
      ['revision', this.revisionItem(kind, head.workspaceId, revision)],
      [
        'head',
        {
          Put: {
            TableName: this.store.table,
            Item: { ...keys.code(kind, head.workspaceId, head.id), kind, ...head },
            ConditionExpression: 'versionId = :expected',
            ExpressionAttributeValues: { ':expected': expectedVersionId },
          },
        },
      ],
    ];
    const { rename } = options;
    if (rename && rename.from !== rename.to) {
      items.push(
        ['name', { Delete: { TableName: this.store.table, Key: keys.codeName(kind, head.workspaceId, rename.from) } }],
        ['name', this.putNew({ ...keys.codeName(kind, head.workspaceId, rename.to), kind, id: head.id })],
      );
    }
    items.push(...this.connectionItems(head.workspaceId, head.id, options.connections));
    await this.write(items, { kind, id: head.id, uniqueName: rename?.to ?? head.name });
  }

  /** Deletes the head and its name guard (revisions stay, as the reference keeps them); StaleHeadError if it moved. */
  async remove(kind: UserCodeKind, head: UserCodeHead, uniqueName: string): Promise<void> {
    const items: Labelled[] = [
      [
        'head',
        {
          Delete: {
            TableName: this.store.table,
            Key: keys.code(kind, head.workspaceId, head.id),
            ConditionExpression: 'versionId = :expected',
            ExpressionAttributeValues: { ':expected': head.versionId },
          },
        },
      ],
      ['name', { Delete: { TableName: this.store.table, Key: keys.codeName(kind, head.workspaceId, uniqueName) } }],
    ];
    await this.write(items, { kind, id: head.id, uniqueName, removing: true });
  }

  /** Moves the published pointers of several heads at once; StaleHeadError when one was deleted meanwhile. */
  async publish(workspaceId: string, moves: ports.PublishMove[]): Promise<void> {
    if (moves.length === 0) return;
    const items = moves.map(({ kind, id, versionId, publishedImports }): Labelled => [
      'published',
      {
        Update: {
          TableName: this.store.table,
          Key: keys.code(kind, workspaceId, id),
          UpdateExpression: publishedImports ? 'SET publishedVersionId = :v, publishedImports = :imports' : 'SET publishedVersionId = :v',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':v': versionId, ...(publishedImports && { ':imports': publishedImports }) },
        },
      },
    ]);
    await this.write(items, { kind: moves[0]!.kind, id: moves[0]!.id, uniqueName: '' });
  }

  private connectionItems(workspaceId: string, transformationId: string, change?: ConnectionChange): Labelled[] {
    if (!change) return [];
    return [
      ...change.connect.map((id): Labelled => ['destination', this.destinationItem(workspaceId, transformationId, id, 'connect'), id]),
      ...change.release.map((id): Labelled => ['destination', this.destinationItem(workspaceId, transformationId, id, 'release'), id]),
    ];
  }

  /**
   * The update that makes `transformationId` the transformation of a destination (which must exist and be free
   * or already its own), or releases it, written with the transformation's revision.
   */
  private destinationItem(workspaceId: string, transformationId: string, destinationId: string, change: 'connect' | 'release'): TransactItem {
    return {
      Update: {
        TableName: this.store.table,
        Key: keys.destination(workspaceId, destinationId),
        UpdateExpression: change === 'connect' ? 'SET transformationId = :t' : 'REMOVE transformationId',
        ConditionExpression:
          change === 'connect' ? 'attribute_exists(pk) AND (attribute_not_exists(transformationId) OR transformationId = :t)' : 'transformationId = :t',
        ExpressionAttributeValues: { ':t': transformationId },
      },
    };
  }

  /** Runs the transaction; a refused condition becomes the typed error of the item that refused it. */
  private async write(items: Labelled[], what: { kind: UserCodeKind; id: string; uniqueName: string; removing?: boolean }): Promise<void> {
    try {
      await this.store.doc.send(new TransactWriteCommand({ TransactItems: items.map(([, item]) => item) }));
    } catch (error) {
      const refused = refusedItems(error);
      if (!refused) throw error;
      const [role, , destinationId] = items[refused.findIndex((code) => code === 'ConditionalCheckFailed')] ?? [];
      const label = what.kind === 'library' ? 'library' : 'transformation';
      if (role === 'name') {
        throw new NameTakenError(
          what.kind === 'library' ? `a library with import name ${what.uniqueName} already exists` : `a transformation named ${what.uniqueName} already exists`,
        );
      }
      if (role === 'destination') throw new DestinationTakenError(`destination ${destinationId} was deleted or connected to another transformation meanwhile`);
      if (role === 'published') throw new StaleHeadError('a transformation or library was deleted while publishing; nothing was published');
      if (what.removing) throw new StaleHeadError(`${label} ${what.id} changed while it was being deleted; try again`);
      throw new StaleHeadError(`${label} changed concurrently; try again`);
    }
  }

  private revisionItem(kind: UserCodeKind, workspaceId: string, revision: UserCodeRevision): TransactItem {
    return this.putNew({
      ...keys.revision(kind, workspaceId, revision.id, revision.versionId),
      ...keys.versionLookup(workspaceId, revision.versionId),
      kind,
      ...revision,
    });
  }

  private putNew(Item: Record<string, unknown>): TransactItem {
    return { Put: putIfAbsent(this.store.table, Item) };
  }
}
