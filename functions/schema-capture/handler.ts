import type { DynamoDBStreamEvent } from 'aws-lambda';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { services } from '../../shared/services';
import { eachBatchOf } from '../../shared/streams/consumer-loop';

const { streamCapture, repositories } = services();
const parked = repositories.parkedRecords;

/**
 * New ingest items (filtered to them), the whole batch at once, so counts are aggregated before anything is
 * written. Records whose models could not be written fail and are tried again (then parked); what they
 * already added is recognised then and not counted again.
 */
export const handler = (event: DynamoDBStreamEvent) =>
  eachBatchOf(event, 'schemaCapture', ingestPartOf, (parts) => streamCapture.captureParts(parts), { parked });
