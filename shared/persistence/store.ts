import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../contract/table';
import { tracer } from '../ops/tracer';

/** A document client bound to one table. The SDK reads AWS_ENDPOINT_URL_DYNAMODB, so no local-only code. */
export interface Store {
  readonly doc: DynamoDBDocumentClient;
  readonly table: string;
}

export function createStore(options: { table?: string; client?: DynamoDBClient } = {}): Store {
  // Every DynamoDB call shows in the invocation's trace (a no-op where tracing is off).
  const client = options.client ?? tracer.captureAWSv3Client(new DynamoDBClient({}));
  return {
    doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    table: options.table ?? process.env.WEIR_TABLE ?? TABLE.localName,
  };
}

let defaultStore: Store | undefined;
/** The store of a Lambda (or local) process: created once, on first use. */
export const getStore = (): Store => (defaultStore ??= createStore());

/** Runs a query to the end, following LastEvaluatedKey. */
export async function queryAll<T = Record<string, unknown>>(
  store: Store,
  input: Omit<QueryCommandInput, 'TableName'>,
): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(new QueryCommand({ ...input, TableName: store.table, ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as T[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** All items of one partition whose sort key begins with `prefix`. */
export const queryPrefix = <T = Record<string, unknown>>(store: Store, pk: string, prefix: string) =>
  queryAll<T>(store, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
  });

/** True when a transaction or conditional write failed on its condition (a race or a duplicate). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'ConditionalCheckFailedException' ||
    (error.name === 'TransactionCanceledException' && /ConditionalCheckFailed/.test(error.message)));

/** One item of a TransactWriteItems call; repositories build them so use cases can combine them. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The per-item codes of a cancelled transaction (the SDK puts them on the error object). */
export function cancellationCodes(error: unknown): (string | undefined)[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code);
}
