import type { DynamoDBStreamEvent } from 'aws-lambda';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { streamDelivery } from '../../shared/composition/delivery';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { repository, services } from '../../shared/services';
import { eachBatchOf } from '../../shared/streams/consumer-loop';

const delivery = streamDelivery(services());
const parked = repository(services(), ParkedRecordRepository);

/**
 * New ingest items (filtered to them), the whole batch at once: each part to the source's destinations.
 * Delivery records its progress, so a redelivered record sends nothing twice; a record that fails is tried
 * again, then parked.
 */
export const handler = (event: DynamoDBStreamEvent) => eachBatchOf(event, 'delivery', ingestPartOf, (parts) => delivery.deliverParts(parts), { parked });
