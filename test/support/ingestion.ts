import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InboundLimits } from '../../shared/domain/ingestion/inbound-limits';
import { IngestService } from '../../shared/domain/ingestion/ingest-service';
import { WriteKeys } from '../../shared/domain/ingestion/write-keys';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import type { TableClient } from '../../shared/persistence/table-client';

/** Ingestion as the data plane runs it, over `store`, with write keys of its own (none looked up before). */
export function ingestServiceOver(store: TableClient): IngestService {
  const ingest = new IngestRepository(store);
  return new IngestService(new WriteKeys(new CatalogRepository(store)), ingest, new InboundLimits(ingest));
}

/** Moves a source's last change of shards (from `previous`) to `atMs`: made that long ago, without waiting for it. */
export async function shardsChangedAt(store: TableClient, workspaceId: string, sourceId: string, previous: number, atMs: number) {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keys.source(workspaceId, sourceId),
      UpdateExpression: 'SET ingestShardsChange = :change',
      ExpressionAttributeValues: { ':change': { previous, at: new Date(atMs).toISOString() } },
    }),
  );
}
