import type { DuplicateFilter } from '../ingestion/duplicates';
import type { IngestPart } from '../ingestion/records';
import { withoutSuppressed, type SuppressionIndex } from '../regulations/suppression-index';
import type { SchemaCapture } from './capture-service';

/**
 * Capturing a stream batch of stored ingest parts: suppressed users' events are never captured (one index
 * read per workspace for the batch), nor duplicates of events their source accepted before (their claims,
 * mostly made by delivery already, read before any is written); the rest go to capture together. Returns the
 * parts that failed, by index, with why.
 */
export class StreamCapture {
  constructor(
    private readonly capture: Pick<SchemaCapture, 'capture'>,
    private readonly suppression: SuppressionIndex,
    private readonly duplicates: Pick<DuplicateFilter, 'duplicatesIn'>,
  ) {}

  async captureParts(parts: IngestPart[]): Promise<Map<number, unknown>> {
    const { indexes } = await this.duplicates.duplicatesIn(parts, { readFirst: true });
    const records = parts.map(({ workspaceId, sourceId, requestId, part, events }, i) => ({
      recordId: `${requestId}#${part}`,
      workspaceId,
      sourceId,
      events: indexes[i]!.size === 0 ? events : events.filter((_, k) => !indexes[i]!.has(k)),
    }));
    const failed = await this.capture.capture((await withoutSuppressed(this.suppression, records)).parts);
    return new Map(records.flatMap((record, i): [number, unknown][] => (failed.has(record.recordId) ? [[i, failed.get(record.recordId)]] : [])));
  }
}
