import { gzipSync } from 'node:zlib';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_BODY_BYTES } from '../../shared/contract/functions';
import { bearer, call, fileRuntime } from '../support/runtime';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';

const rt = fileRuntime();
let ws: WorkspaceCredentials;
let sourceId: string;
beforeAll(async () => {
  ws = await rt.newWorkspace();
  sourceId = (await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'S' } })).body.source.id;
});

const snapshot = async () => {
  const { Items = [] } = await rt.store.doc.send(new ScanCommand({ TableName: rt.store.table, ConsistentRead: true }));
  return JSON.stringify(Items.sort((x, y) => `${x.pk}${x.sk}`.localeCompare(`${y.pk}${y.sk}`)));
};

const send = (method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
  call(rt.controlUrl, method, path, { auth: bearer(ws.token), ...options });

describe('bad input answers 4xx JSON naming what is wrong, and changes nothing', () => {
  const cases: [string, () => ReturnType<typeof send>, number, RegExp][] = [
    ['malformed JSON', () => send('POST', '/v2/sources', { rawBody: '{"name": ' }), 400, /^body: malformed JSON/],
    ['a JSON array instead of an object', () => send('POST', '/v2/sources', { body: [] }), 400, /^body: .*expected object/],
    ['a wrong type', () => send('POST', '/v2/sources', { body: { name: 42 } }), 400, /^body\.name: .*expected string/],
    ['a missing required field', () => send('POST', '/v2/sources', { body: { type: 'HTTP' } }), 400, /^body\.name: /],
    ['an empty name', () => send('POST', '/v2/sources', { body: { name: '  ' } }), 400, /^body\.name: must not be empty/],
    ['an unknown field', () => send('POST', '/v2/sources', { body: { name: 'x', colour: 'red' } }), 400, /^body\.colour: unknown field/],
    ['no body at all', () => send('POST', '/v2/destinations'), 400, /^body\.name: /],
    ['a patch that changes nothing', () => send('PATCH', `/v2/sources/${sourceId}`, { body: {} }), 400, /^body: body must change/],
    ['a patch with a wrong type', () => send('PATCH', `/v2/sources/${sourceId}`, { body: { enabled: 'no' } }), 400, /^body\.enabled: .*expected boolean/],
    ['corrupt gzip', () => send('POST', '/v2/sources', { rawBody: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]) }), 400, /^body: gzip data is corrupt/],
    ['an oversized body', () => send('POST', '/v2/sources', { body: { name: 'x'.repeat(MAX_BODY_BYTES) } }), 413, /larger than 1048576 bytes/],
    ['a gzip bomb', () => send('POST', '/v2/sources', { rawBody: gzipSync(Buffer.alloc(MAX_BODY_BYTES * 4, 32)) }), 413, /once decompressed/],
    [
      'a connection to ids that are not strings',
      () => send('POST', '/v2/connections', { body: { sourceId: 1, destinationId: null } }),
      400,
      /^body\.sourceId: /,
    ],
  ];

  it.each(cases)('%s', async (_name, request, status, message) => {
    const before = await snapshot();
    const answer = await request();
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body.error).toMatch(message);
    expect(await snapshot()).toBe(before);
  });

  it('lists every offending field in details', async () => {
    const answer = await send('POST', '/v2/destinations', { body: { name: 1, type: 2, extra: true } });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.details).sort()).toEqual(['body.extra', 'body.name', 'body.type']);
  });
});

describe('bodies are read as the SDKs send them', () => {
  it('accepts a gzip body whatever its content type says', async () => {
    const answer = await send('POST', '/v2/sources', {
      rawBody: gzipSync(JSON.stringify({ name: 'zipped' })),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.source.name).toBe('zipped');
  });
});
