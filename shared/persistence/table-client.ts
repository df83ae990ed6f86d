import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchGetCommandOutput,
  type DeleteCommandInput,
  type PutCommandInput,
  type DynamoDBDocumentClientResolvedConfig,
  type QueryCommandInput,
  type UpdateCommandInput,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Command } from '@smithy/types';
import { TABLE } from '../contract/table';
import { tracer } from '../ops/tracer';

/** A document client bound to one table. The SDK reads AWS_ENDPOINT_URL_DYNAMODB, so no local-only code. */
export interface TableClient {
  readonly doc: DynamoDBDocumentClient;
  readonly table: string;
}

export function createTableClient(options: { table?: string; client?: DynamoDBClient } = {}): TableClient {
  // Every DynamoDB call shows in the invocation's trace (a no-op where tracing is off).
  const client = options.client ?? tracer.captureAWSv3Client(new DynamoDBClient({}));
  return {
    doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    table: options.table ?? process.env.WEIR_TABLE ?? TABLE.localName,
  };
}

let defaultStore: TableClient | undefined;
/** The store of a Lambda (or local) process: created once, on first use. */
export const getTableClient = (): TableClient => (defaultStore ??= createTableClient());

/** The item at `Key`, if any. `read` is added to the request. */
export async function getItem(
  store: TableClient,
  Key: Record<string, unknown>,
  read: { ConsistentRead?: boolean; ProjectionExpression?: string } = {},
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await store.doc.send(new GetCommand({ TableName: store.table, Key, ...read }));
  return Item;
}

/** Runs a query to the end, following LastEvaluatedKey. */
export async function queryAll<T = Record<string, unknown>>(store: TableClient, input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(new QueryCommand({ ...input, TableName: store.table, ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as T[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The items of a query's first page (up to its `Limit`), without following LastEvaluatedKey. */
export async function queryPage<T = Record<string, unknown>>(store: TableClient, input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const { Items = [] } = await store.doc.send(new QueryCommand({ ...input, TableName: store.table }));
  return Items as T[];
}

/** All items of one partition whose sort key begins with `prefix`. */
export const queryPrefix = <T = Record<string, unknown>>(store: TableClient, pk: string, prefix: string) =>
  queryAll<T>(store, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
  });

/**
 * The items at the given keys, in no particular order (absent ones left out): a BatchGet call per hundred keys,
 * each call's unprocessed keys asked again until none are left. `read` is added to each call's request.
 */
export async function getEach(
  store: TableClient,
  keys: Record<string, unknown>[],
  read: { ConsistentRead?: boolean; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let request: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
    while (request && request.length > 0) {
      const answer: BatchGetCommandOutput = await store.doc.send(new BatchGetCommand({ RequestItems: { [store.table]: { Keys: request, ...read } } }));
      items.push(...(answer.Responses?.[store.table] ?? []));
      request = answer.UnprocessedKeys?.[store.table]?.Keys;
    }
  }
  return items;
}

/** A put's input (a PutCommand's, or a transaction's Put) that writes `Item` only where no item is at its key. */
export const putIfAbsent = (table: string, Item: Record<string, unknown>) => ({ TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' });

/** True when a conditional write, or a transaction, failed on a condition (a race or a duplicate). */
export const isConditionFailure = (error: unknown): boolean => error instanceof ConditionalCheckFailedException || refusedItems(error) !== undefined;

/** Sends a conditional write: false when its condition refused it (a race or a duplicate); any other failure is thrown. */
export async function conditionally<I extends ServiceInputTypes, O extends ServiceOutputTypes>(
  store: TableClient,
  command: Command<ServiceInputTypes, I, ServiceOutputTypes, O, DynamoDBDocumentClientResolvedConfig>,
): Promise<boolean> {
  try {
    await store.doc.send(command);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Sends an update, with its answer (any failure is thrown). */
export const updateItem = (store: TableClient, input: Omit<UpdateCommandInput, 'TableName'>) =>
  store.doc.send(new UpdateCommand({ ...input, TableName: store.table }));

/** Sends a conditional put: false when its condition refused it; any other failure is thrown. */
export const putIf = (store: TableClient, input: Omit<PutCommandInput, 'TableName'>): Promise<boolean> =>
  conditionally(store, new PutCommand({ ...input, TableName: store.table }));

/** Sends a conditional update: false when its condition refused it; any other failure is thrown. */
export const updateIf = (store: TableClient, input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> =>
  conditionally(store, new UpdateCommand({ ...input, TableName: store.table }));

/** Sends a conditional delete: false when its condition refused it; any other failure is thrown. */
export const deleteIf = (store: TableClient, input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> =>
  conditionally(store, new DeleteCommand({ ...input, TableName: store.table }));

/** Writes items in one transaction: false when a condition refused it; any other failure is thrown. */
export const transactIf = (store: TableClient, TransactItems: TransactItem[]): Promise<boolean> =>
  conditionally(store, new TransactWriteCommand({ TransactItems }));

/**
 * Sends a conditional update that returns the item as written (`ALL_NEW`): undefined when its condition refused
 * it (a race, or no such item); any other failure is thrown.
 */
export async function updated(store: TableClient, input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>): Promise<Record<string, unknown> | undefined> {
  try {
    const { Attributes } = await store.doc.send(new UpdateCommand({ ...input, TableName: store.table, ReturnValues: 'ALL_NEW' }));
    return Attributes ?? {};
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * For a transaction cancelled because a condition failed: each item's code, in the order of the items
 * (`ConditionalCheckFailed` where it failed, `None` elsewhere). Undefined for any other failure.
 */
export function refusedItems(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const codes = (error.CancellationReasons ?? []).map((r) => r.Code);
  return codes.includes('ConditionalCheckFailed') ? codes : undefined;
}

/** One item of a TransactWriteItems call, as repositories build them. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
