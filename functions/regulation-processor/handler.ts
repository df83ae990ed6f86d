import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { Regulation } from '../../shared/domain/regulations/schemas';
import { regulationsOver } from '../../shared/domain/regulations/wiring';
import { getStore } from '../../shared/persistence/store';

const { runner } = regulationsOver(getStore());

/**
 * Regulation stream records (filtered to regulation items): a new suppress_with_delete starts its deletion
 * jobs; a cancel stops the ones still waiting. Both are idempotent, so a redelivered record changes
 * nothing twice. Failed records are reported for retry (partial batch failure).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const image = record.dynamodb?.NewImage;
      if (!image) continue;
      const regulation = Regulation.parse(unmarshall(image as Record<string, AttributeValue>));
      if (regulation.regulationType !== 'suppress_with_delete') continue;
      if (record.eventName === 'INSERT') await runner.start(regulation);
      else if (record.eventName === 'MODIFY' && regulation.canceled) await runner.cancel(regulation);
    } catch (error) {
      console.error('regulation record failed', record.eventID, error);
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures };
};
