import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

type DeliveryHandler = (event: { Records: unknown[] }) => Promise<{ batchItemFailures: unknown[] }>;

/** The delivery consumer's handler, the deployed function's entry, run in this process. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const deliveryHandler = (): DeliveryHandler => (require('../../functions/delivery/handler') as { handler: DeliveryHandler }).handler;

/** A stored item as the table's stream hands it over: an INSERT record with its image. */
export const streamRecordOf = (item: Record<string, unknown>, eventID: string, sequence = 1) => ({
  eventID,
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: String(sequence), NewImage: marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue> },
});

/** Hands stored ingest items to the delivery consumer as one stream batch (a record each, in order); its answer. */
export const handOver = (items: Record<string, unknown>[], prefix: string) =>
  deliveryHandler()({ Records: items.map((item, i) => streamRecordOf(item, `${prefix}-${i}`, i + 1)) });
