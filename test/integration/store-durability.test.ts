import { CreateTableCommand, DynamoDBClient, ScanCommand, TransactWriteItemsCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local';

/**
 * The local runtime's persisted store keeps what it acknowledged when it is killed at once: DynamoDB Local on
 * its own answers a transaction before committing it (infra/local/commit-barrier.ts), so without the barrier
 * the last transactions answered before a SIGKILL are gone after the restart.
 */
const TABLE = 'durability';
const ROUNDS = 3;
const TRANSACTIONS = 40;

const clientOf = (store: DynamoDbLocal) =>
  new DynamoDBClient({ endpoint: store.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

async function storedKeys(client: DynamoDBClient): Promise<Set<string>> {
  const keys = new Set<string>();
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey }));
    for (const item of page.Items ?? []) keys.add(item.pk?.S as string);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return keys;
}

const killed = (store: DynamoDbLocal) =>
  new Promise<void>((resolve) => {
    store.process.once('exit', () => resolve());
    store.process.kill('SIGKILL');
  });

let dataDir: string;
let running: DynamoDbLocal | undefined;
beforeAll(() => (dataDir = mkdtempSync(path.join(tmpdir(), 'weir-durability-'))));
afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the persisted local store', () => {
  it('keeps every transaction it answered when it is SIGKILLed right after the answers', async () => {
    const acknowledged: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      running = await startDynamoDbLocal({ dataDir });
      const client = clientOf(running);
      if (round === 0) {
        await client.send(
          new CreateTableCommand({
            TableName: TABLE,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          }),
        );
      }
      await Promise.all(
        Array.from({ length: TRANSACTIONS }, async (_, i) => {
          const pk = `round-${round}-${i}`;
          await client.send(
            new TransactWriteItemsCommand({
              TransactItems: [{ Put: { TableName: TABLE, Item: { pk: { S: pk } } } }, { Put: { TableName: TABLE, Item: { pk: { S: `${pk}-beside` } } } }],
            }),
          );
          acknowledged.push(pk, `${pk}-beside`);
        }),
      );
      // Killed the moment the last answer is in, as a power cut or `kill -9` of the process group would.
      await killed(running);
      await running.stop(); // the store is gone; this closes what stood in front of it
      client.destroy();
    }

    running = await startDynamoDbLocal({ dataDir });
    const client = clientOf(running);
    const stored = await storedKeys(client);
    client.destroy();
    expect(acknowledged).toHaveLength(ROUNDS * TRANSACTIONS * 2);
    expect(acknowledged.filter((key) => !stored.has(key))).toEqual([]);
  }, 120_000);
});
