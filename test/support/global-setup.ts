// The same quiet here as in every test process (DynamoDB Local's client and the console's build run here).
import './quiet-output';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureConsoleBuilt } from '../../infra/local/console-site';

/**
 * Once before the run: the console's build, the JVM options of every DynamoDB Local of the run, and the folder
 * where each jest worker records the DynamoDB Local it started (test/support/worker-store.ts; test files that
 * create tables and read streams at the same moment in one DynamoDB Local were seen to hang it, so each worker
 * has its own). A run given one store in WEIR_TEST_DYNAMODB_ENDPOINT uses it instead.
 */
export default async function globalSetup(): Promise<void> {
  // Once here, before test files start several `npm start`s and check the build's size.
  ensureConsoleBuilt();
  // Every DynamoDB Local of the run (the workers', and those each `npm start` of the e2e tests starts) compiles
  // with C1 only and collects with one thread: measured on nine suites, a fifth less CPU and no slower answers,
  // on a 2-core machine the whole run keeps busy (the kill bench starts its stores the same way).
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  if (process.env.WEIR_TEST_DYNAMODB_ENDPOINT) return;
  process.env.WEIR_TEST_STORES_DIR = mkdtempSync(path.join(os.tmpdir(), 'weir-test-stores-'));
}
