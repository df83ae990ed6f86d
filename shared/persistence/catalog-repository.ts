import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { getItem, putIfAbsent, queryAll, queryPrefix, refusedItems, transactIf, updated, type TableClient, type TransactItem } from './table-client';
import type * as ports from '../domain/catalog/ports';
import { Connection, Destination, Source } from '../domain/catalog/schemas';
import { ConflictError, NotFoundError } from '../domain/errors';
import type { Rule } from '../domain/rules/schemas';

type Resource = ports.CatalogResource;

/** Sources, destinations and connections of a workspace. Items are parsed with the domain's zod schemas. */
export class CatalogRepository implements ports.CatalogRepository {
  constructor(private readonly store: TableClient) {}

  // --- sources -------------------------------------------------------------------------------------------

  async listSources(workspaceId: string): Promise<Source[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.sourcePrefix);
    return items.map((item) => Source.parse(item));
  }

  async getSource(workspaceId: string, id: string): Promise<Source | undefined> {
    const item = await this.get(keys.source(workspaceId, id));
    return item && Source.parse(item);
  }

  /** The source item and its lookup items (by write key, by id) are written together. */
  async createSource(workspaceId: string, source: Source): Promise<void> {
    await this.transact([
      this.putNew({ ...keys.source(workspaceId, source.id), workspaceId, ...source }),
      this.putNew({ ...keys.writeKey(source.writeKey), workspaceId, sourceId: source.id }),
      this.putNew({ ...keys.sourceLookup(source.id), workspaceId, sourceId: source.id }),
    ]);
  }

  /** The workspace of a source, by the source's id alone (sources made before this lookup existed have none). */
  async findSource(sourceId: string): Promise<ports.SourceRef | undefined> {
    const item = await this.get(keys.sourceLookup(sourceId));
    return item && { workspaceId: String(item.workspaceId), sourceId: String(item.sourceId) };
  }

  async findWriteKey(writeKey: string): Promise<ports.SourceRef | undefined> {
    const item = await this.get(keys.writeKey(writeKey));
    return item && { workspaceId: String(item.workspaceId), sourceId: String(item.sourceId) };
  }

  // --- destinations --------------------------------------------------------------------------------------

  async listDestinations(workspaceId: string): Promise<Destination[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.destinationPrefix);
    return items.map((item) => Destination.parse(item));
  }

  /** Read from the credentials as stored: their names only (a destination's secret field may name one). */
  async credentialKeys(workspaceId: string): Promise<string[]> {
    const items = await queryAll<{ key: string }>(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.workspacePartition(workspaceId), ':prefix': keys.credentialPrefix },
      ProjectionExpression: '#key',
      ExpressionAttributeNames: { '#key': 'key' },
    });
    return items.map((item) => item.key);
  }

  async getDestination(workspaceId: string, id: string): Promise<Destination | undefined> {
    const item = await this.get(keys.destination(workspaceId, id));
    return item && Destination.parse(item);
  }

  async createDestination(workspaceId: string, destination: Destination): Promise<void> {
    await this.transact([this.putNew({ ...keys.destination(workspaceId, destination.id), workspaceId, ...destination })]);
  }

  // --- shared by sources and destinations ----------------------------------------------------------------

  /** Sets the given attributes of an existing source or destination; 404 when it does not exist. */
  async update(resource: Resource, workspaceId: string, id: string, changes: Record<string, unknown>): Promise<Record<string, unknown>> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(changes).map(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    const item = await updated(this.store, {
      Key: this.key(resource, workspaceId, id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    if (!item) throw NotFoundError.of(resource, id);
    return item;
  }

  /** Deletes a source or destination together with every connection that uses it. */
  async delete(resource: Resource, workspaceId: string, id: string): Promise<void> {
    const existing = resource === 'source' ? await this.getSource(workspaceId, id) : await this.getDestination(workspaceId, id);
    if (!existing) throw NotFoundError.of(resource, id);
    const connections = (await this.listConnections(workspaceId)).filter((c) => (resource === 'source' ? c.sourceId === id : c.destinationId === id));
    const deletes: TransactItem[] = [
      {
        Delete: {
          TableName: this.store.table,
          Key: this.key(resource, workspaceId, id),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      ...connections.flatMap((c) => this.connectionDeletes(workspaceId, c)),
    ];
    if (resource === 'source') {
      deletes.push({ Delete: { TableName: this.store.table, Key: keys.writeKey((existing as Source).writeKey) } });
      deletes.push({ Delete: { TableName: this.store.table, Key: keys.sourceLookup(id) } });
    }
    if (!(await transactIf(this.store, deletes))) throw NotFoundError.of(resource, id);
  }

  // --- connections ---------------------------------------------------------------------------------------

  async listConnections(workspaceId: string): Promise<Connection[]> {
    const items = await queryPrefix(this.store, keys.workspacePartition(workspaceId), keys.connectionPrefix);
    return items.map((item) => Connection.parse(item));
  }

  async getConnection(workspaceId: string, id: string): Promise<Connection | undefined> {
    const item = await this.get(keys.connection(workspaceId, id));
    return item && Connection.parse(item);
  }

  /**
   * Writes the connection, a guard item that makes a source/destination pair unique, and checks that both
   * ends still exist, all in one transaction (a concurrent delete cannot leave a dangling connection).
   */
  async createConnection(workspaceId: string, connection: Connection): Promise<void> {
    const { sourceId, destinationId } = connection;
    const exists = (Key: Record<string, string>): TransactItem => ({
      ConditionCheck: { TableName: this.store.table, Key, ConditionExpression: 'attribute_exists(pk)' },
    });
    try {
      await this.transact([
        this.putNew({ ...keys.connection(workspaceId, connection.id), workspaceId, ...connection }),
        this.putNew({ ...keys.connectionPair(workspaceId, sourceId, destinationId), connectionId: connection.id }),
        exists(keys.source(workspaceId, sourceId)),
        exists(keys.destination(workspaceId, destinationId)),
      ]);
    } catch (error) {
      const reasons = refusedItems(error);
      if (!reasons) throw error;
      if (reasons[2] === 'ConditionalCheckFailed') throw NotFoundError.of('source', sourceId);
      if (reasons[3] === 'ConditionalCheckFailed') throw NotFoundError.of('destination', destinationId);
      throw new ConflictError(`source ${sourceId} is already connected to destination ${destinationId}`);
    }
  }

  async setConnectionRules(workspaceId: string, id: string, rules: Rule[], at: string): Promise<Connection> {
    const item = await updated(this.store, {
      Key: keys.connection(workspaceId, id),
      UpdateExpression: 'SET #rules = :rules, updatedAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#rules': 'rules' },
      ExpressionAttributeValues: { ':rules': rules, ':at': at },
    });
    if (!item) throw NotFoundError.of('connection', id);
    return Connection.parse(item);
  }

  async deleteConnection(workspaceId: string, id: string): Promise<void> {
    const connection = await this.getConnection(workspaceId, id);
    if (!connection) throw NotFoundError.of('connection', id);
    await this.transact(this.connectionDeletes(workspaceId, connection));
  }

  // --- helpers -------------------------------------------------------------------------------------------

  private key(resource: Resource, workspaceId: string, id: string) {
    return resource === 'source' ? keys.source(workspaceId, id) : keys.destination(workspaceId, id);
  }

  private connectionDeletes(workspaceId: string, c: Connection): TransactItem[] {
    return [
      { Delete: { TableName: this.store.table, Key: keys.connection(workspaceId, c.id) } },
      { Delete: { TableName: this.store.table, Key: keys.connectionPair(workspaceId, c.sourceId, c.destinationId) } },
    ];
  }

  private putNew(Item: Record<string, unknown>): TransactItem {
    return { Put: putIfAbsent(this.store.table, Item) };
  }

  private get(Key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    return getItem(this.store, Key, { ConsistentRead: true });
  }

  private async transact(TransactItems: TransactItem[]): Promise<void> {
    await this.store.doc.send(new TransactWriteCommand({ TransactItems }));
  }
}
