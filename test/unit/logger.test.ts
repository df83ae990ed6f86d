import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Logs are one JSON object per line (Powertools), at the level LOG_LEVEL names, errors with their cause. */
const ROOT = path.resolve(__dirname, '../..');
const LINES = `
  const { componentLogger } = require('./shared/ops/logger');
  const log = componentLogger('delivery');
  log.info('an info line', { destinationId: 'd1' });
  log.error('delivery work failed', { destinationId: 'd1', error: new Error('write failed', { cause: new Error('store away') }) });
`;
/** The test run's environment without its log level (tests run with their lines off): a child's level is its own. */
const { LOG_LEVEL: _runLevel, ...inherited } = process.env;
/** Runs `script` in a Node process of its own and reads its output as JSON lines. */
const run = (env: Record<string, string>, script = LINES) => {
  const { stdout, stderr } = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { ...inherited, POWERTOOLS_DEV: '', ...env },
    encoding: 'utf8',
  });
  return `${stdout}${stderr}`
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

test('a log line names its component, its fields and the error with its cause', () => {
  const lines = run({ LOG_LEVEL: 'INFO' });
  expect(lines.map((l) => [l.level, l.message])).toEqual([
    ['INFO', 'an info line'],
    ['ERROR', 'delivery work failed'],
  ]);
  expect(lines[1]).toMatchObject({
    service: 'weir',
    component: 'delivery',
    destinationId: 'd1',
    error: { message: 'write failed', cause: { message: 'store away' } },
  });
});

test('LOG_LEVEL leaves out what is below it', () => {
  expect(run({ LOG_LEVEL: 'ERROR' }).map((l) => l.level)).toEqual(['ERROR']);
});

test('an unexpected error of a request is logged with its id, route and workspace, and answers 500 without details', () => {
  const script = `
    const { errorToResult } = require('./shared/http/error-mapping');
    const answer = errorToResult(new Error('boom', { cause: new Error('deeper') }), 'control', { requestId: 'r-1', route: 'GET /v2/sources', workspaceId: 'w-1' });
    process.stdout.write(JSON.stringify({ answer }) + '\\n');
  `;
  const lines = run({}, script);
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'ERROR',
      component: 'http',
      requestId: 'r-1',
      route: 'GET /v2/sources',
      workspaceId: 'w-1',
      error: expect.objectContaining({ message: 'boom', cause: expect.objectContaining({ message: 'deeper' }) }),
    }),
  );
  expect(lines).toContainEqual({ answer: expect.objectContaining({ statusCode: 500, body: JSON.stringify({ error: 'internal error' }) }) });
});

test('every line of an invocation carries the Lambda request id, whichever part writes it, in handlers and authorizers', () => {
  const script = `
    const { createHandler } = require('./shared/http/handler');
    const { DATA_META_ROUTES } = require('./shared/contract/function-routes/data-meta');
    const { createAuthorizer } = require('./shared/http/authorizer');
    const { componentLogger } = require('./shared/ops/logger');
    const log = componentLogger('somewhere');
    const context = (id) => ({ awsRequestId: id, functionName: 'weir-test', functionVersion: '$LATEST', memoryLimitInMB: '512', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:weir-test' });
    const http = createHandler('dataMeta', DATA_META_ROUTES, {
      'GET /health': async () => { log.info('inside a request'); return { status: 'ok' }; },
      'GET /openapi.json': async () => ({}),
    });
    const authorizer = createAuthorizer(async () => { log.info('inside an authorizer'); return { principalId: 'p' }; });
    (async () => {
      await http({ httpMethod: 'GET', resource: '/health', headers: {}, requestContext: {} }, context('req-http'));
      await authorizer({ methodArn: 'arn:aws:execute-api:eu-west-1:1:api/stage/GET/x', headers: {} }, context('req-auth'));
    })();
  `;
  const lines = run({}, script);
  expect(lines).toContainEqual(expect.objectContaining({ message: 'inside a request', component: 'somewhere', function_request_id: 'req-http' }));
  expect(lines).toContainEqual(expect.objectContaining({ message: 'inside an authorizer', component: 'somewhere', function_request_id: 'req-auth' }));
});
