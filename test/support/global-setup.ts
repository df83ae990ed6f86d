// The same quiet here as in every test process (DynamoDB Local's client and the console's build run here).
import './quiet-output';
import type { Config } from 'jest';
import { ensureConsoleBuilt } from '../../infra/local/console-site';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local';

/**
 * One DynamoDB Local (in memory) for each jest worker, each test file making its own table in its worker's store
 * (test/support/worker-store.ts picks it): test files that create tables and read streams at the same moment in
 * one DynamoDB Local were seen to hang it.
 */
export default async function globalSetup(globalConfig: Pick<Config, 'maxWorkers'>): Promise<void> {
  // Once here, before test files start several `npm start`s and check the build's size.
  ensureConsoleBuilt();
  // Every DynamoDB Local of the run (these, and those each `npm start` of the e2e tests starts) compiles with
  // C1 only and collects with one thread: measured on nine suites, a fifth less CPU and no slower answers, on a
  // 2-core machine the whole run keeps busy (the kill bench starts its stores the same way).
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  if (process.env.WEIR_TEST_DYNAMODB_ENDPOINT) return;
  const workers = Math.max(1, Number(globalConfig.maxWorkers) || 1);
  const stores = await Promise.all(Array.from({ length: workers }, () => startDynamoDbLocal()));
  (globalThis as { weirDynamo?: DynamoDbLocal[] }).weirDynamo = stores;
  process.env.WEIR_TEST_DYNAMODB_ENDPOINTS = stores.map((store) => store.endpoint).join(',');
}
