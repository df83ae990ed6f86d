import { keys } from '../../shared/persistence/keys';
import { queryAll, type TableClient } from '../../shared/persistence/table-client';

/** Every item of the given partitions (an item family spread over shards, read whole). */
export async function itemsIn(store: TableClient, partitions: string[]): Promise<Record<string, unknown>[]> {
  const pages = await Promise.all(partitions.map((pk) => queryAll(store, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })));
  return pages.flat();
}

/** Every parked delivery of a destination, across its users' retry partitions. */
export const parkedItems = (store: TableClient, workspaceId: string, destinationId: string) =>
  itemsIn(store, keys.deliveryRetryPartitions(workspaceId, destinationId));
