import { keys } from '../../shared/persistence/keys';
import { queryAll, type TableClient } from '../../shared/persistence/table-client';

/** Every parked delivery of a destination, across its users' retry partitions. */
export async function parkedItems(store: TableClient, workspaceId: string, destinationId: string): Promise<Record<string, unknown>[]> {
  const pages = await Promise.all(
    keys
      .deliveryRetryPartitions(workspaceId, destinationId)
      .map((pk) => queryAll(store, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })),
  );
  return pages.flat();
}
