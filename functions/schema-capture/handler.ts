import type { DynamoDBStreamEvent } from 'aws-lambda';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { streamCapture } from '../../shared/composition/event-schemas';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { repository, services } from '../../shared/services';
import { eachBatchOf } from '../../shared/streams/consumer-loop';

const capture = streamCapture(services());
const parked = repository(services(), ParkedRecordRepository);

/**
 * New ingest items (filtered to them), the whole batch at once, so counts are aggregated before anything is
 * written. Records whose models could not be written fail and are tried again (then parked); what they
 * already added is recognised then and not counted again.
 */
export const handler = (event: DynamoDBStreamEvent) => eachBatchOf(event, 'schemaCapture', ingestPartOf, (parts) => capture.captureParts(parts), { parked });
