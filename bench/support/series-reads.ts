import { queryEach } from '../../shared/persistence/across-partitions';
import { partitionsOf } from '../../shared/persistence/families';
import { destinationFunnelPartition } from '../../shared/persistence/funnel-counters';
import type { TableClient } from '../../shared/persistence/table-client';
import { itemBytes } from './partitions';

/**
 * What a destination's series views read once every hour of their window holds counters like the bench's hour:
 * each shard's hour item (the bench's, with every 5-minute slot filled as a whole hour of its traffic would)
 * taken once per hour of the window, read with one eventually consistent query per shard (½ unit per 4 KB, at
 * least ½); and the largest hour item as the bench left it, in bytes.
 */
export async function steadyViewReads(store: TableClient, workspaceId: string, destinationId: string) {
  const partitions = partitionsOf('counters', destinationFunnelPartition(workspaceId, destinationId));
  const items = await queryEach(store, partitions, { KeyConditionExpression: 'pk = :pk' });
  const shards = new Map<string, number>();
  for (const item of items) shards.set(String(item.pk), Math.max(shards.get(String(item.pk)) ?? 0, itemBytes(everySlot(item))));
  const rcu = (hours: number) =>
    [...shards.values()].reduce((n, bytes) => n + Math.max(1, Math.ceil((hours * bytes) / 4096)) * 0.5, (partitions.length - shards.size) * 0.5);
  return { day: rcu(24), month: rcu(30 * 24), largestItemBytes: Math.max(0, ...items.map(itemBytes)) };
}

/** An hour item with each slot attribute (`m<slot><series>`) it holds copied to the hour's 12 slots. */
function everySlot(item: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...item };
  for (const [name, value] of Object.entries(item)) {
    const slot = /^m\d+([a-z])$/.exec(name);
    if (slot) for (let s = 0; s < 12; s++) filled[`m${s}${slot[1]}`] = value;
  }
  return filled;
}
