import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { deliveryOver } from '../../shared/domain/delivery/wiring';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { getStore } from '../../shared/persistence/store';

const delivery = deliveryOver(getStore());

/**
 * New ingest items (filtered to them): each is delivered to the source's destinations. Delivery records its
 * progress, so a redelivered record sends nothing twice; a record that fails is reported for retry.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const image = record.dynamodb?.NewImage;
      if (!image) continue;
      const item = unmarshall(image as Record<string, AttributeValue>);
      await delivery.deliverPart({
        workspaceId: String(item.workspaceId),
        sourceId: String(item.sourceId),
        requestId: String(item.requestId),
        part: Number(item.part),
        events: unpackEvents(item.payload as Uint8Array),
      });
    } catch (error) {
      console.error('delivery record failed', record.eventID, error);
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures };
};
