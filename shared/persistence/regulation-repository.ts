import { BatchGetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { getItem, putIf, putIfAbsent, transactIf, updateItem, type TableClient, type TransactItem } from './table-client';
import type * as ports from '../domain/regulations/ports';
import { Regulation } from '../domain/regulations/schemas';

type SuppressionScope = ports.SuppressionScope;

/** Each regulation in force is one attribute of its user's suppression item, so one can go without the others. */
const SCOPE_PREFIX = 'r_';
const scopeAttribute = (regulationId: string) => `${SCOPE_PREFIX}${regulationId}`;
/** Transactions of at most 100 items: a regulation and its suppression update are two. */
const USERS_PER_TRANSACTION = 25;

/** Regulations, the per-user suppression items, listing cursors and idempotency records of a workspace. */
export class RegulationRepository implements ports.RegulationRepository {
  constructor(private readonly store: TableClient) {}

  // --- regulations and their suppression ---------------------------------------------------------------------

  private createItems(regulation: Regulation): TransactItem[] {
    const items: TransactItem[] = [
      { Put: putIfAbsent(this.store.table, { ...keys.regulation(regulation.workspaceId, regulation.id), entity: 'regulation', ...regulation }) },
    ];
    if (!regulation.canceled) {
      items.push({
        Update: {
          TableName: this.store.table,
          Key: keys.suppression(regulation.workspaceId, regulation.attributes.userId!),
          UpdateExpression: 'SET #scope = :scope',
          ExpressionAttributeNames: { '#scope': scopeAttribute(regulation.id) },
          ExpressionAttributeValues: { ':scope': regulation.sourceIds ?? '*' },
        },
      });
    }
    return items;
  }

  /**
   * Writes regulations with their suppression entries, 25 users per transaction. A regulation that exists
   * already (a retried create) is left as it is, so a replay never undoes a cancel.
   */
  async createRegulations(regulations: Regulation[]): Promise<void> {
    await this.createAll(regulations);
    for (const workspaceId of new Set(regulations.map((r) => r.workspaceId))) await this.moveStamp(workspaceId);
  }

  private async createAll(regulations: Regulation[]): Promise<void> {
    for (let i = 0; i < regulations.length; i += USERS_PER_TRANSACTION) {
      const chunk = regulations.slice(i, i + USERS_PER_TRANSACTION);
      if (
        await transactIf(
          this.store,
          chunk.flatMap((r) => this.createItems(r)),
        )
      )
        continue;
      for (const regulation of chunk) await transactIf(this.store, this.createItems(regulation));
    }
  }

  async getRegulation(workspaceId: string, id: string): Promise<Regulation | undefined> {
    const item = await getItem(this.store, keys.regulation(workspaceId, id), { ConsistentRead: true });
    return item && Regulation.parse(item);
  }

  /**
   * Marks a regulation canceled and lifts its suppression in one transaction; the user's other
   * regulations stay in force. Idempotent: a canceled regulation is returned as it is.
   */
  async cancel(workspaceId: string, id: string, at: string): Promise<Regulation | undefined> {
    const current = await this.getRegulation(workspaceId, id);
    if (!current) return undefined;
    if (current.canceled) {
      await this.moveStamp(workspaceId); // a retried cancel: its first call may have failed before the stamp moved
      return current;
    }
    // Refused (false) when canceled meanwhile by another call.
    await transactIf(this.store, [
      {
        Update: {
          TableName: this.store.table,
          Key: keys.regulation(workspaceId, id),
          UpdateExpression: 'SET canceled = :true, canceledAt = :at',
          ConditionExpression: 'canceled = :false',
          ExpressionAttributeValues: { ':true': true, ':false': false, ':at': at },
        },
      },
      {
        Update: {
          TableName: this.store.table,
          Key: keys.suppression(workspaceId, current.attributes.userId!),
          UpdateExpression: 'REMOVE #scope',
          ExpressionAttributeNames: { '#scope': scopeAttribute(id) },
        },
      },
    ]);
    await this.moveStamp(workspaceId);
    return this.getRegulation(workspaceId, id);
  }

  /**
   * One page in creation order after `afterSk`, filtered. Reads on until `limit + 1` matches are found, so
   * `hasMore` is exact and the last page says so.
   */
  async listPage(workspaceId: string, options: { afterSk?: string; limit: number; filters: ports.RegulationFilters }): Promise<ports.RegulationsPage> {
    const { filters } = options;
    const conditions: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':pk': keys.workspacePartition(workspaceId), ':prefix': keys.regulationPrefix };
    if (filters.userId !== undefined) {
      conditions.push('#attributes.#userId = :userId');
      Object.assign(names, { '#attributes': 'attributes', '#userId': 'userId' });
      values[':userId'] = filters.userId;
    }
    if (filters.regulationType !== undefined) {
      conditions.push('regulationType = :type');
      values[':type'] = filters.regulationType;
    }
    if (filters.canceled !== undefined) {
      conditions.push('canceled = :canceled');
      values[':canceled'] = filters.canceled;
    }
    const found: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined = options.afterSk ? { pk: keys.workspacePartition(workspaceId), sk: options.afterSk } : undefined;
    do {
      const page = await this.store.doc.send(
        new QueryCommand({
          TableName: this.store.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ...(conditions.length > 0 && { FilterExpression: conditions.join(' AND ') }),
          ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
          ExpressionAttributeValues: values,
          ExclusiveStartKey: start,
          Limit: options.limit + 1 - found.length,
        }),
      );
      found.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && found.length <= options.limit);
    const items = found.slice(0, options.limit);
    return {
      items: items.map((item) => Regulation.parse(item)),
      lastSk: items.length > 0 ? String(items[items.length - 1]!.sk) : undefined,
      hasMore: found.length > options.limit,
    };
  }

  /**
   * The regulations in force for each of the given users, by userId: one strongly consistent BatchGet
   * round (100 keys per call), so a create or cancel that has returned is seen at once.
   */
  async suppressionsOf(workspaceId: string, userIds: string[]): Promise<Map<string, SuppressionScope[]>> {
    const result = new Map<string, SuppressionScope[]>();
    const wanted = userIds.map((userId) => keys.suppression(workspaceId, userId));
    for (let i = 0; i < wanted.length; i += 100) {
      let requested: Record<string, unknown>[] = wanted.slice(i, i + 100);
      for (let round = 0; requested.length > 0; round++) {
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** round)));
        const answer = await this.store.doc.send(new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: requested, ConsistentRead: true } } }));
        for (const item of answer.Responses?.[this.store.table] ?? []) {
          const userId = String(item.sk).slice('SUPPRESS#'.length);
          const scopes = Object.entries(item)
            .filter(([name]) => name.startsWith(SCOPE_PREFIX))
            .map(([, scope]) => scope as SuppressionScope);
          if (scopes.length > 0) result.set(userId, [...(result.get(userId) ?? []), ...scopes]);
        }
        requested = (answer.UnprocessedKeys?.[this.store.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }
    return result;
  }

  /**
   * The workspace's suppression stamp, moved after each change of its suppression items has been written (so a
   * consumer that reads the moved stamp reads the change too); the change's call fails if this write does, and
   * its retry moves it then.
   */
  private async moveStamp(workspaceId: string): Promise<void> {
    await updateItem(this.store, {
      Key: keys.suppressionStamp(workspaceId),
      UpdateExpression: 'ADD stamp :one',
      ExpressionAttributeValues: { ':one': 1 },
    });
  }

  async suppressionStamp(workspaceId: string): Promise<number> {
    const item = await getItem(this.store, keys.suppressionStamp(workspaceId), { ConsistentRead: true });
    return Number(item?.stamp ?? 0);
  }

  // --- cursors and idempotency -------------------------------------------------------------------------------

  async putCursor(workspaceId: string, cursor: string, state: Record<string, unknown>, ttlSeconds: number): Promise<void> {
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: { ...keys.listCursor(workspaceId, cursor), state, expiresAt: Math.floor(Date.now() / 1000) + ttlSeconds },
      }),
    );
  }

  async getCursor(workspaceId: string, cursor: string): Promise<Record<string, unknown> | undefined> {
    const item = await getItem(this.store, keys.listCursor(workspaceId, cursor));
    // TTL deletion lags; an expired cursor is expired even while its item lingers.
    if (!item || Number(item.expiresAt) * 1000 < Date.now()) return undefined;
    return item.state as Record<string, unknown>;
  }

  /** Records what a keyed create made; false when the key was recorded already (read it with getIdempotency). */
  async putIdempotency(workspaceId: string, key: string, record: Record<string, unknown>, ttlSeconds: number): Promise<boolean> {
    const item = { ...keys.idempotency(workspaceId, 'regulations', key), record, expiresAt: Math.floor(Date.now() / 1000) + ttlSeconds };
    return putIf(this.store, putIfAbsent(this.store.table, item));
  }

  async getIdempotency(workspaceId: string, key: string): Promise<Record<string, unknown> | undefined> {
    const item = await getItem(this.store, keys.idempotency(workspaceId, 'regulations', key), { ConsistentRead: true });
    return item?.record as Record<string, unknown> | undefined;
  }
}
