import { ensureConsoleBuilt } from '../../infra/local/console-site';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local';

/** One DynamoDB Local (in memory) for the whole run; each test file makes its own table in it. */
export default async function globalSetup(): Promise<void> {
  // Node 20 is the development runtime; the SDK's end-of-support notice would fill the test output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Once here, before test files start several `npm start`s and check the build's size.
  ensureConsoleBuilt();
  if (process.env.WEIR_TEST_DYNAMODB_ENDPOINT) return;
  const dynamo = await startDynamoDbLocal();
  (globalThis as { weirDynamo?: DynamoDbLocal }).weirDynamo = dynamo;
  process.env.WEIR_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
}
