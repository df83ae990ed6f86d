import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableClient, type TableClient } from '../../shared/persistence/table-client';

/**
 * A table client of its own over the test runtime's DynamoDB Local that notes every read it makes, key by key
 * (a Get's key, each key of a BatchGet, a Query's partition), and the items its queries returned, so a test can
 * tell what a use case read.
 */
export function countingStore(
  endpoint: string,
  table: string,
): { store: TableClient; reads: () => { pk: string; sk?: string }[]; queried: () => number; reset(): void } {
  const store = createTableClient({ client: new DynamoDBClient({ endpoint }), table });
  let reads: { pk: string; sk?: string }[] = [];
  let queried = 0;
  store.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const command = String(context.commandName ?? '');
      if (command === 'GetCommand' || command === 'GetItemCommand') reads.push(input.Key as { pk: string; sk: string });
      if (command.startsWith('BatchGet')) {
        for (const request of Object.values(input.RequestItems as Record<string, { Keys: { pk: string; sk: string }[] }>)) reads.push(...request.Keys);
      }
      if (!command.startsWith('Query')) return next(args);
      const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
      reads.push({ pk: String(values?.[':pk'] ?? values?.[':gpk'] ?? '?') });
      const result = await next(args);
      queried += ((result.output as { Items?: unknown[] }).Items ?? []).length;
      return result;
    },
    { step: 'initialize', name: 'testReads' },
  );
  return {
    store,
    reads: () => reads,
    queried: () => queried,
    reset: () => {
      reads = [];
      queried = 0;
    },
  };
}
