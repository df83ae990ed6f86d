import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deliveryOver } from '../../shared/domain/delivery/wiring';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { getStore } from '../../shared/persistence/store';
import { eachNewImage } from '../../shared/domain/streams/consumer-loop';

const delivery = deliveryOver(getStore());
const parked = new ParkedRecordRepository(getStore());

/**
 * New ingest items (filtered to them): each is delivered to the source's destinations. Delivery records its
 * progress, so a redelivered record sends nothing twice; a record that fails is reported for retry.
 */
export const handler = (event: DynamoDBStreamEvent) =>
  eachNewImage(event, 'delivery', (item) => delivery.deliverPart(ingestPartOf(item)), { parked });
