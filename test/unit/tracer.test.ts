import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Inside Lambda (with tracing on), every call of the AWS clients (the store, KMS) is traced; elsewhere nothing is added. */
const ROOT = path.resolve(__dirname, '../..');
/** The middleware of the AWS SDK client `client` (an expression) builds, in a Node process with `env`. */
const middlewareOf = (client: string, env: Record<string, string>): string[] => {
  const script = `process.stdout.write(JSON.stringify((${client}).middlewareStack.identify()));`;
  const { stdout } = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as string[];
};

const traced = (names: string[]) => names.some((name) => name.startsWith('XRaySDKInstrumentation'));
const IN_LAMBDA = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_LAMBDA_FUNCTION_NAME: 'weir-test' };

test("the store's DynamoDB client is captured by the tracer in Lambda, and left alone elsewhere", () => {
  const store = `require('./shared/persistence/table-client').createTableClient({ table: 't' }).doc`;
  expect(traced(middlewareOf(store, IN_LAMBDA))).toBe(true);
  expect(traced(middlewareOf(store, {}))).toBe(false);
});

test('the KMS client that wraps credential keys is captured by the tracer in Lambda, and left alone elsewhere', () => {
  const kms = `new (require('./shared/keys/key-wrappers').KmsKeyWrapper)('alias/weir').kms`;
  expect(traced(middlewareOf(kms, IN_LAMBDA))).toBe(true);
  expect(traced(middlewareOf(kms, {}))).toBe(false);
});
