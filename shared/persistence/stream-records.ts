import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';

/** A record's new image as a plain item (undefined for a record without one, such as a removal). */
export function newImageOf(record: DynamoDBRecord): Record<string, unknown> | undefined {
  const image = record.dynamodb?.NewImage;
  return image && unmarshall(image as Record<string, AttributeValue>);
}
