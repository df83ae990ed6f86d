import { DEFAULT_INGEST_SHARDS, eventShard } from '../../shared/domain/ingestion/shards';
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

/**
 * Ids of users that share one ingest shard (that of userId `first`) of a source with `shards`, so that a
 * request of theirs is stored as one item, as every request was before shards: each name as it is when it
 * falls in that shard, else with the smallest `~k` suffix that does. `by` is the id the name is used as.
 */
export function oneShard(first: string, shards = DEFAULT_INGEST_SHARDS): (name: string, by?: 'userId' | 'anonymousId') => string {
  const shard = eventShard({ userId: first }, shards);
  return (name, by = 'userId') => {
    for (let k = 0; ; k++) {
      const id = k === 0 ? name : `${name}~${k}`;
      if (eventShard({ [by]: id }, shards) === shard) return id;
    }
  };
}
