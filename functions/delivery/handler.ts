import type { DynamoDBStreamEvent } from 'aws-lambda';
import { ingestPartOf } from '../../shared/persistence/ingest-repository';
import { eachNewImage } from '../../shared/domain/streams/consumer-loop';
import { services } from '../../shared/services';

const { delivery, repositories } = services();
const parked = repositories.parkedRecords;

/**
 * New ingest items (filtered to them): each is delivered to the source's destinations. Delivery records its
 * progress, so a redelivered record sends nothing twice; a record that fails is reported for retry.
 */
export const handler = (event: DynamoDBStreamEvent) => eachNewImage(event, 'delivery', (item) => delivery.deliverPart(ingestPartOf(item)), { parked });
