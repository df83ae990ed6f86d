import type { DynamoDbLocal } from '../../infra/local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { weirDynamo?: DynamoDbLocal }).weirDynamo?.stop();
}
