import { ingestPartitionsOf } from '../../shared/persistence/ingest-reads';
import { queryAll, type TableClient } from '../../shared/persistence/table-client';

/** Every item of a source's stored events (its accepted parts, refused and dropped records), across its shards, oldest first. */
export async function ingestItems(store: TableClient, workspaceId: string, sourceId: string): Promise<Record<string, unknown>[]> {
  const partitions = await ingestPartitionsOf(store, workspaceId, sourceId);
  const items = await Promise.all(
    partitions.map((pk) => queryAll(store, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true })),
  );
  return items.flat().sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : String(a.sk) > String(b.sk) ? 1 : 0));
}
