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

/** Names of users of one shard: as userIds, or (`anonymousId`) as anonymous ids. */
export interface OneShardNames {
  (name: string): string;
  anonymousId(name: string): string;
}

/**
 * Ids of users that share one ingest shard (that of userId `first`) of a source with `shards`, so that a
 * request of theirs is stored as one item, as every request was before shards: each name as it is when it
 * falls in that shard, else with the smallest `~k` suffix that does.
 */
export function oneShard(first: string, shards = DEFAULT_INGEST_SHARDS): OneShardNames {
  const shard = eventShard({ userId: first }, shards);
  const named = (by: 'userId' | 'anonymousId') => (name: string) => {
    for (let k = 0; ; k++) {
      const id = k === 0 ? name : `${name}~${k}`;
      if (eventShard({ [by]: id }, shards) === shard) return id;
    }
  };
  return Object.assign(named('userId'), { anonymousId: named('anonymousId') });
}
