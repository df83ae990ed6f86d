import type { DynamoDBStreamEvent } from 'aws-lambda';
import { consumeRecords, type Failures } from '../../shared/domain/streams/consumer-loop';
import { ingestPartOf, type IngestPart } from '../../shared/persistence/ingest-repository';
import { services } from '../../shared/services';

const { delivery, repositories } = services();
const parked = repositories.parkedRecords;

/**
 * New ingest items (filtered to them), the whole batch at once: each part to the source's destinations.
 * Delivery records its progress, so a redelivered record sends nothing twice; a record that fails is tried
 * again, then parked.
 */
export const handler = (event: DynamoDBStreamEvent) =>
  consumeRecords(
    event,
    'delivery',
    async (items) => {
      const failures: Failures = new Map();
      const parts: { sequence: string; part: IngestPart }[] = [];
      for (const { item, sequence } of items) {
        try {
          parts.push({ sequence, part: ingestPartOf(item) });
        } catch (error) {
          failures.set(sequence, error);
        }
      }
      const failed = await delivery.deliverParts(parts.map((p) => p.part));
      for (const [i, error] of failed) failures.set(parts[i]!.sequence, error);
      return failures;
    },
    { parked },
  );
