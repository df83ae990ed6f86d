import { gunzipSync, gzipSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { HeldRun } from '../domain/delivery/records';
import { queryEach } from './across-partitions';
import { attention, ttl } from './delivery-items';
import { keys } from './keys';
import { deleteIf, putIfAbsent, updateIf, type TableClient } from './table-client';

const keyOf = (held: Pick<HeldRun, 'workspaceId' | 'destinationId' | 'runId'>) => keys.deliveryHold(held.workspaceId, held.destinationId, held.runId);
const indexAt = (held: HeldRun, at: string) => attention(at, 'H', `${held.workspaceId}#${held.destinationId}#${held.runId}`, keyOf(held).sk);

/**
 * The item of a held run: its parts as gzipped JSON (a list of maps would repeat two attribute names per part;
 * a request's parts share its id, which compresses to almost nothing). Every write of the item is also an
 * index write of its size, its renewals too: about 0.3 KB for a stream batch's hundred parts, not 4.
 */
function heldRunItem(held: HeldRun): Record<string, unknown> {
  const { parts, ...rest } = held;
  return {
    ...keyOf(held),
    entity: 'deliveryHold',
    ...rest,
    parts: gzipSync(JSON.stringify(parts.map((p) => [p.requestId, p.part]))),
    ...indexAt(held, held.leaseUntil),
    expiresAt: ttl(),
  };
}

export function parseHeldRun(item: Record<string, unknown>): HeldRun {
  const packed = item.parts instanceof Uint8Array ? gunzipSync(item.parts).toString('utf8') : '[]';
  const parts = (JSON.parse(packed) as [string, number][]).map(([requestId, part]) => ({ requestId, part }));
  return HeldRun.parse({ ...item, parts });
}

/**
 * Held runs (records.ts HeldRun): one item for the batches a stream consumer stopped waiting for, in the
 * scheduler's index at its lease; every change conditional on the owner and lease its writer knows.
 */
export class HeldRuns {
  constructor(private readonly store: TableClient) {}

  async hold(held: HeldRun): Promise<void> {
    await this.store.doc.send(new PutCommand(putIfAbsent(this.store.table, heldRunItem(held))));
  }

  async lease(held: HeldRun, next: Pick<HeldRun, 'owner' | 'leaseUntil'>): Promise<HeldRun | undefined> {
    const moved = { ...held, ...next };
    const entry = indexAt(moved, next.leaseUntil);
    const written = await updateIf(this.store, {
      Key: keyOf(held),
      UpdateExpression: 'SET #owner = :owner, leaseUntil = :lease, gsi1pk = :gpk, gsi1sk = :gsk',
      ConditionExpression: '#owner = :was AND leaseUntil = :wasLease',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: {
        ':owner': next.owner,
        ':lease': next.leaseUntil,
        ':gpk': entry.gsi1pk,
        ':gsk': entry.gsi1sk,
        ':was': held.owner,
        ':wasLease': held.leaseUntil,
      },
    });
    return written ? moved : undefined;
  }

  async end(held: HeldRun): Promise<void> {
    await deleteIf(this.store, {
      Key: keyOf(held),
      ConditionExpression: '#owner = :owner AND leaseUntil = :lease',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': held.owner, ':lease': held.leaseUntil },
    });
  }

  async atDestination(workspaceId: string, destinationId: string): Promise<HeldRun[]> {
    const items = await queryEach(this.store, keys.deliveryHoldPartitions(workspaceId, destinationId), {
      KeyConditionExpression: 'pk = :pk',
      ConsistentRead: true,
    });
    return items.map(parseHeldRun);
  }
}
