import type { DynamoDBStreamEvent } from 'aws-lambda';
import { type AcceptedRecord } from '../../shared/domain/event-schemas/capture-service';
import { consumeRecords, type Failures } from '../../shared/domain/streams/consumer-loop';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { withoutSuppressed } from '../../shared/domain/regulations/suppression-index';
import { services } from '../../shared/services';

const { capture, repositories, suppression } = services();
const parked = repositories.parkedRecords;

/**
 * New ingest items (filtered to them), the whole batch at once, so counts are aggregated before anything is
 * written. Records whose models could not be written fail and are tried again (then parked); what they
 * already added is recognised then and not counted again.
 */
export const handler = (event: DynamoDBStreamEvent) =>
  consumeRecords(
    event,
    'schemaCapture',
    async (items) => {
      const failures: Failures = new Map();
      const records: (AcceptedRecord & { sequence: string })[] = [];
      for (const { item, sequence } of items) {
        try {
          const { workspaceId, sourceId, requestId, part, events } = ingestPartOf(item);
          records.push({ sequence, recordId: `${requestId}#${part}`, workspaceId, sourceId, events });
        } catch (error) {
          failures.set(sequence, error);
        }
      }
      // Suppressed users' events are never captured (one index read per workspace for the batch).
      const failed = await capture.capture((await withoutSuppressed(suppression, records)).parts);
      for (const record of records) if (failed.has(record.recordId)) failures.set(record.sequence, failed.get(record.recordId));
      return failures;
    },
    { parked },
  );
