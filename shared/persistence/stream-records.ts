import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/** A record's new image as a plain item (undefined for a record without one, such as a removal). */
export function newImageOf(record: DynamoDBRecord): Record<string, unknown> | undefined {
  const image = record.dynamodb?.NewImage;
  return image && unmarshall(image as Record<string, AttributeValue>);
}

/**
 * A stream consumer's loop: each record's new image, as a plain item, to `handle`, one record after the
 * other; a record that throws is reported as a batch item failure (Lambda retries from it), and logged.
 */
export async function eachNewImage(
  event: DynamoDBStreamEvent,
  name: string,
  handle: (item: Record<string, unknown>, record: DynamoDBRecord) => Promise<void>,
): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    if (!record.dynamodb?.NewImage) continue;
    try {
      await handle(newImageOf(record)!, record);
    } catch (error) {
      console.error(`${name}: record ${record.eventID} failed`, error);
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures };
}
