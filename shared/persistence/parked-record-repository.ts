import { keys } from './keys';
import { deleteIf, getItem, putIf, putIfAbsent, queryAll, queryPage, updated, updateIf, type TableClient } from './table-client';
import type * as ports from '../domain/streams/ports';
import { ParkedRecord, type ParkedRef } from '../domain/streams/schemas';

/** The domain owns the shape of a parked record; this repository parses what it reads with it. */
export type { ParkedRecord, ParkedRef };

const attention = (at: string, r: ParkedRef) => ({
  gsi1pk: keys.parkedRecordsDue,
  gsi1sk: `${at}#${r.consumer}#${r.workspaceId}#${r.eventId}`,
});
const key = (r: ParkedRef) => keys.parkedRecord(r.workspaceId, r.consumer, r.eventId);

export class ParkedRecordRepository implements ports.ParkedRecordRepository {
  constructor(private readonly store: TableClient) {}

  /** Parks a record; false when it is parked already (a redelivered record that failed again). */
  async park(record: Omit<ParkedRecord, 'status' | 'attempts' | 'replays'>): Promise<boolean> {
    const item = { ...key(record), entity: 'parkedRecord', ...record, status: 'waiting', attempts: 0, replays: 0, ...attention(record.dueAt, record) };
    return putIf(this.store, putIfAbsent(this.store.table, item));
  }

  /**
   * Puts a parked record in `replaying` state until `leaseUntil`: when due (or `now` for a replay on demand),
   * or when an earlier replay was lost. Undefined when it is not there or not to be taken.
   */
  async startReplay(ref: ParkedRef, now: string, leaseUntil: string, onDemand = false): Promise<ParkedRecord | undefined> {
    const item = await updated(this.store, {
      Key: key(ref),
      UpdateExpression: 'SET #status = :replaying, dueAt = :lease, replays = replays + :one, gsi1sk = :gsk',
      ConditionExpression: onDemand ? 'attribute_exists(pk)' : '(#status = :waiting AND dueAt <= :now) OR (#status = :replaying AND dueAt < :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':replaying': 'replaying',
        ':lease': leaseUntil,
        ':one': 1,
        ':gsk': attention(leaseUntil, ref).gsi1sk,
        ...(!onDemand && { ':waiting': 'waiting', ':now': now }),
      },
    });
    return item && ParkedRecord.parse(item);
  }

  /** A replay failed again: waiting until `dueAt`, with its error. False when it changed meanwhile. */
  async replayFailed(record: ParkedRecord, error: string, dueAt: string): Promise<boolean> {
    return updateIf(this.store, {
      Key: key(record),
      UpdateExpression: 'SET #status = :waiting, lastError = :error, attempts = attempts + :one, dueAt = :due, gsi1sk = :gsk',
      ConditionExpression: '#status = :replaying AND replays = :replays',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':waiting': 'waiting',
        ':replaying': 'replaying',
        ':error': error,
        ':one': 1,
        ':due': dueAt,
        ':gsk': attention(dueAt, record).gsi1sk,
        ':replays': record.replays,
      },
    });
  }

  /** A replay succeeded: the record is handled, and no longer parked. */
  async release(record: ParkedRecord): Promise<void> {
    // Replayed again meanwhile (on demand): that replay finds the work done and releases it.
    await deleteIf(this.store, {
      Key: key(record),
      ConditionExpression: 'replays = :replays',
      ExpressionAttributeValues: { ':replays': record.replays },
    });
  }

  async get(ref: ParkedRef): Promise<ParkedRecord | undefined> {
    const item = await getItem(this.store, key(ref), { ConsistentRead: true });
    return item && ParkedRecord.parse(item);
  }

  /**
   * The items a consumer's parked records hold, in one workspace (their kind and ids, not their content):
   * records that wait for a replay are not lost, and the audit says so.
   */
  async itemsParkedBy(workspaceId: string, consumer: string): Promise<{ sourceId?: string; requestId?: string; part?: number }[]> {
    const items = await queryAll(this.store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :consumer)',
      ExpressionAttributeValues: { ':pk': keys.parkedRecord(workspaceId, consumer, '').pk, ':consumer': `${consumer}#` },
      ExpressionAttributeNames: { '#part': 'part' },
      ProjectionExpression: 'image.sourceId, image.requestId, image.#part',
      ConsistentRead: true,
    });
    return items.map((item) => {
      const image = (item.image ?? {}) as Record<string, unknown>;
      return {
        ...(typeof image.sourceId === 'string' && { sourceId: image.sourceId }),
        ...(typeof image.requestId === 'string' && { requestId: image.requestId }),
        ...(image.part !== undefined && { part: Number(image.part) }),
      };
    });
  }

  /** Parked records across workspaces, by due time; `before` limits them to those due by then. */
  async list(limit: number, before = '~'): Promise<ParkedRecord[]> {
    const items = await queryPage(this.store, {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
      ExpressionAttributeValues: { ':pk': keys.parkedRecordsDue, ':before': before },
      Limit: limit,
    });
    return items.map((item) => ParkedRecord.parse(item));
  }
}
