// The same quiet here as in every test process (DynamoDB Local's client and the console's build run here).
import './quiet-output';
import { ensureConsoleBuilt } from '../../infra/local/console-site';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local';

/** One DynamoDB Local (in memory) for the whole run; each test file makes its own table in it. */
export default async function globalSetup(): Promise<void> {
  // Once here, before test files start several `npm start`s and check the build's size.
  ensureConsoleBuilt();
  if (process.env.WEIR_TEST_DYNAMODB_ENDPOINT) return;
  const dynamo = await startDynamoDbLocal();
  (globalThis as { weirDynamo?: DynamoDbLocal }).weirDynamo = dynamo;
  process.env.WEIR_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
}
