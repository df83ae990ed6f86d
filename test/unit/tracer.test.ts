import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Inside Lambda (with tracing on), every DynamoDB call of the store is traced; elsewhere nothing is added. */
const ROOT = path.resolve(__dirname, '../..');
const middlewareOfStore = (env: Record<string, string>): string[] => {
  const script = `const { createTableClient } = require('./shared/persistence/table-client');
    process.stdout.write(JSON.stringify(createTableClient({ table: 't' }).doc.middlewareStack.identify()));`;
  const { stdout } = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as string[];
};

test("the store's DynamoDB client is captured by the tracer in Lambda, and left alone elsewhere", () => {
  const traced = (names: string[]) => names.some((name) => name.startsWith('XRaySDKInstrumentation'));
  expect(traced(middlewareOfStore({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_LAMBDA_FUNCTION_NAME: 'weir-catalog' }))).toBe(true);
  expect(traced(middlewareOfStore({}))).toBe(false);
});
