import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type * as ports from '../domain/replays/ports';
import { Replay, type ReplayProgress } from '../domain/replays/schemas';
import { keys } from './keys';
import { getItem, putIfAbsent, queryPage, updated, type TableClient } from './table-client';

const runningKey = (replay: Pick<Replay, 'createdAt' | 'workspaceId' | 'id'>) => ({
  gsi1pk: keys.runningReplays,
  gsi1sk: `${replay.createdAt}#${replay.workspaceId}#${replay.id}`,
});

const PROGRESS_FIELDS = ['parts', 'events', 'delivered', 'filtered', 'aborted', 'retrying', 'suppressed', 'duplicate'] as const;

/** Replay jobs (see the port): every change after creation is conditional on the replay still running. */
export class ReplayRepository implements ports.ReplayRepository {
  constructor(private readonly store: TableClient) {}

  async create(replay: Replay): Promise<void> {
    const item = { ...keys.replay(replay.workspaceId, replay.id), entity: 'replay', ...replay, ...runningKey(replay) };
    await this.store.doc.send(new PutCommand(putIfAbsent(this.store.table, item)));
  }

  async get(workspaceId: string, id: string): Promise<Replay | undefined> {
    const item = await getItem(this.store, keys.replay(workspaceId, id), { ConsistentRead: true });
    return item ? Replay.parse(item) : undefined;
  }

  async list(workspaceId: string, limit: number): Promise<Replay[]> {
    const items = await queryPage(this.store, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.replayPartition(workspaceId) },
      ScanIndexForward: false,
      Limit: limit,
    });
    return items.map((item) => Replay.parse(item));
  }

  async running(limit: number): Promise<Replay[]> {
    const items = await queryPage(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :running',
      ExpressionAttributeValues: { ':running': keys.runningReplays },
      Limit: limit,
    });
    // The index is eventually consistent: what it lists is read again from the item before anything is sent.
    const found = await Promise.all(items.map((item) => this.get(String(item.workspaceId), String(item.id))));
    return found.filter((replay): replay is Replay => replay?.status === 'running');
  }

  async advance(replay: Replay, cursor: string, added: ReplayProgress, at: string): Promise<Replay | undefined> {
    const sums = PROGRESS_FIELDS.map((field) => `progress.#${field} = progress.#${field} + :${field}`);
    const names = Object.fromEntries(PROGRESS_FIELDS.map((field) => [`#${field}`, field]));
    const values = Object.fromEntries(PROGRESS_FIELDS.map((field) => [`:${field}`, added[field]]));
    const item = await updated(this.store, {
      Key: keys.replay(replay.workspaceId, replay.id),
      UpdateExpression: `SET #cursor = :cursor, updatedAt = :at, ${sums.join(', ')}`,
      ConditionExpression: `#status = :running AND ${replay.cursor === undefined ? 'attribute_not_exists(#cursor)' : '#cursor = :was'}`,
      ExpressionAttributeNames: { '#cursor': 'cursor', '#status': 'status', ...names },
      ExpressionAttributeValues: {
        ':cursor': cursor,
        ':at': at,
        ':running': 'running',
        ...(replay.cursor !== undefined && { ':was': replay.cursor }),
        ...values,
      },
    });
    return item && Replay.parse(item);
  }

  async finish(
    replay: Pick<Replay, 'workspaceId' | 'id'>,
    status: 'completed' | 'failed' | 'cancelled',
    at: string,
    error?: string,
  ): Promise<Replay | undefined> {
    const item = await updated(this.store, {
      Key: keys.replay(replay.workspaceId, replay.id),
      UpdateExpression: `SET #status = :status, updatedAt = :at, finishedAt = :at${error ? ', #error = :error' : ''} REMOVE gsi1pk, gsi1sk`,
      ConditionExpression: '#status = :running',
      ExpressionAttributeNames: { '#status': 'status', ...(error && { '#error': 'error' }) },
      ExpressionAttributeValues: { ':status': status, ':at': at, ':running': 'running', ...(error && { ':error': error }) },
    });
    return item && Replay.parse(item);
  }
}
