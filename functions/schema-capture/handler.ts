import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { SchemaCapture, type AcceptedRecord } from '../../shared/domain/schemas/capture-service';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { SchemaRepository } from '../../shared/persistence/schema-repository';
import { getStore } from '../../shared/persistence/store';
import { newImageOf } from '../../shared/persistence/stream-records';

const store = getStore();
const capture = new SchemaCapture(new SchemaRepository(store), new CatalogRepository(store));

/**
 * New ingest items (filtered to them), the whole batch at once, so counts are aggregated before anything is
 * written. Records whose models could not be written are reported for retry; what they already added is
 * recognised then and not counted again.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const records: (AcceptedRecord & { sequence: string })[] = [];
  const unreadable: string[] = [];
  for (const record of event.Records) {
    const sequence = record.dynamodb?.SequenceNumber ?? '';
    try {
      const item = newImageOf(record);
      if (!item) continue;
      records.push({
        sequence,
        recordId: `${String(item.requestId)}#${Number(item.part)}`,
        workspaceId: String(item.workspaceId),
        sourceId: String(item.sourceId),
        events: unpackEvents(item.payload as Uint8Array),
      });
    } catch (error) {
      console.error(`schema capture: record ${record.eventID} is unreadable`, error);
      unreadable.push(sequence);
    }
  }
  const failed = await capture.capture(records);
  const retry = [...unreadable, ...records.filter((r) => failed.has(r.recordId)).map((r) => r.sequence)];
  return { batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) };
};
