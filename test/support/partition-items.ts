import { queryEach } from '../../shared/persistence/across-partitions';
import { keys } from '../../shared/persistence/keys';
import type { TableClient } from '../../shared/persistence/table-client';

/** Every item of the given partitions (an item family spread over shards, read whole). */
export const itemsIn = (store: TableClient, partitions: string[]): Promise<Record<string, unknown>[]> =>
  queryEach(store, partitions, { KeyConditionExpression: 'pk = :pk' });

/** Every parked delivery of a destination, across its users' retry partitions. */
export const parkedItems = async (store: TableClient, workspaceId: string, destinationId: string) =>
  (await itemsIn(store, keys.deliveryRetryPartitions(workspaceId, destinationId))).filter((item) => String(item.sk).startsWith(keys.deliveryRetryPrefix));

/** Every record of how a parked delivery ended, beside the parked deliveries of its user. */
export const settledItems = async (store: TableClient, workspaceId: string, destinationId: string) =>
  (await itemsIn(store, keys.deliveryRetryPartitions(workspaceId, destinationId))).filter((item) => String(item.sk).startsWith(keys.deliverySettledPrefix));
