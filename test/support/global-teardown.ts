import type { DynamoDbLocal } from '../../infra/local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  await Promise.all(((globalThis as { weirDynamo?: DynamoDbLocal[] }).weirDynamo ?? []).map((store) => store.stop()));
}
