import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleFunction, initEnv } from '../../infra/bundle-build';

// The ingest function as Lambda runs it: its bundle alone in a fresh Node process, where no other module has
// set zod's locale. Its schemas are written with zod/mini, which loads none: a 400 must still read as the full
// build words it.

let dir: string;
let file: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-ingest-bundle-'));
  ({ file } = await bundleFunction('ingest', dir));
}, 60_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What the bundled handler answers to a request, called in a process of its own. */
function answerOf(request: {
  method: string;
  resource: string;
  path: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}) {
  const event = {
    httpMethod: request.method,
    resource: request.resource,
    path: request.path,
    pathParameters: request.pathParameters ?? null,
    queryStringParameters: request.query ?? null,
    headers: { 'content-type': 'application/json' },
    body: request.body === undefined ? null : JSON.stringify(request.body),
    isBase64Encoded: false,
    requestContext: { requestId: 'r1', identity: { sourceIp: '203.0.113.7' } },
  };
  const script = `require(${JSON.stringify(file)}).handler(${JSON.stringify(event)}, {}).then((a) => { process.stdout.write(JSON.stringify(a)); process.exit(0); })`;
  const out = execFileSync(process.execPath, ['--no-warnings', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
    env: initEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out) as { statusCode: number; body: string };
}

test("the bundled ingest function's 400 names the field and zod's English message for a value of the wrong type", () => {
  const answer = answerOf({ method: 'POST', resource: '/beacon/v1/batch', path: '/beacon/v1/batch', body: { batch: [{}], writeKey: 5 } });
  expect(answer).toMatchObject({ statusCode: 400, body: 'body.writeKey: Invalid input: expected string, received number' });
});

test("the bundled ingest function's 400 gives zod's English message for a query value too long", () => {
  const answer = answerOf({
    method: 'POST',
    resource: '/beacon/v1/batch',
    path: '/beacon/v1/batch',
    query: { writeKey: 'k'.repeat(1001) },
    body: { batch: [{}] },
  });
  expect(answer).toMatchObject({ statusCode: 400, body: 'query.writeKey: Too big: expected string to have <=1000 characters' });
});

test('the bundled ingest function keeps its own messages for a path it does not know', () => {
  const answer = answerOf({ method: 'POST', resource: '/v1/{type}', path: '/v1/nope', pathParameters: { type: 'nope' }, body: {} });
  expect(answer).toMatchObject({ statusCode: 400, body: 'path.type: unknown event type' });
});
