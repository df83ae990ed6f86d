import { setTimeout as sleep } from 'node:timers/promises';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { basic, bearer, call, fileRuntime } from '../support/runtime';

/** The credential store over HTTP: secrets never come back, values are sealed at rest, workspaces kept apart. */
const rt = fileRuntime();

const client = (ws: WorkspaceCredentials, scheme: 'basic' | 'bearer' = 'basic') => {
  const auth = scheme === 'basic' ? basic(ws.email, ws.token) : bearer(ws.token);
  return (method: string, path: string, body?: unknown) => call(rt.controlUrl, method, path, { auth, body });
};

const SECRET = 'sk_live_0123456789abcdefSECRET';
const PLAIN = 'https://api.example.com/v2-PLAIN';

describe('credentials', () => {
  it('show a secret never again, a plain value always, and keep neither in plaintext at rest', async () => {
    const ws = await rt.newWorkspace();
    const api = client(ws);
    const secret = await api('PUT', '/credentials/STRIPE_KEY', { value: SECRET });
    expect(secret.status).toBe(200);
    expect(secret.body).toEqual({
      credential: { key: 'STRIPE_KEY', isSecret: true, createdAt: expect.any(String), updatedAt: expect.any(String) },
    });
    const plain = await client(ws, 'bearer')('PUT', '/credentials/apiBase', { value: PLAIN, isSecret: false });
    expect(plain.body.credential).toMatchObject({ key: 'apiBase', isSecret: false, value: PLAIN });

    const listed = await api('GET', '/credentials');
    expect(listed.body.credentials).toEqual([
      { key: 'STRIPE_KEY', isSecret: true, createdAt: expect.any(String), updatedAt: expect.any(String) },
      { key: 'apiBase', isSecret: false, value: PLAIN, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);

    const { Items = [] } = await rt.store.doc.send(new ScanCommand({ TableName: rt.store.table }));
    const raw = JSON.stringify(
      Items.map((item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v]))),
    );
    expect(raw).toContain('STRIPE_KEY');
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain(PLAIN);
  });

  it('replace a value in place, keeping its creation time', async () => {
    const api = client(await rt.newWorkspace());
    const first = (await api('PUT', '/credentials/TOKEN', { value: 'one', isSecret: false })).body.credential;
    await sleep(5);
    const second = (await api('PUT', '/credentials/TOKEN', { value: 'two', isSecret: false })).body.credential;
    expect(second).toEqual({ key: 'TOKEN', isSecret: false, value: 'two', createdAt: first.createdAt, updatedAt: expect.any(String) });
    expect(second.updatedAt > first.updatedAt).toBe(true);
    expect((await api('GET', '/credentials')).body.credentials).toHaveLength(1);
  });

  it('are deleted once; a second delete is a 404', async () => {
    const api = client(await rt.newWorkspace());
    await api('PUT', '/credentials/GONE', { value: 'x' });
    expect((await api('DELETE', '/credentials/GONE')).body).toEqual({ success: true });
    const again = await api('DELETE', '/credentials/GONE');
    expect([again.status, again.body.error]).toEqual([404, 'credential with id GONE not found']);
    expect((await api('GET', '/credentials')).body.credentials).toEqual([]);
  });

  it('refuse bad keys and bodies with 400 naming what is wrong, and store nothing', async () => {
    const api = client(await rt.newWorkspace());
    const keyError = 'path.key: key must be an identifier: letters, digits and _, not starting with a digit, at most 128 characters';
    for (const key of ['1abc', 'a-b', 'a.b', 'x'.repeat(129), '%20']) {
      const answer = await api('PUT', `/credentials/${key}`, { value: 'v' });
      expect([key, answer.status, answer.body.error]).toEqual([key, 400, keyError]);
    }
    const cases: [unknown, string | RegExp][] = [
      [{ value: 5 }, 'body.value: value must be a string'],
      [{}, 'body.value: value must be a string'],
      [{ value: 'v', isSecret: 'yes' }, 'body.isSecret: isSecret must be true or false'],
      [{ value: 'v', extra: 1 }, 'body.extra: unknown field'],
      [{ value: 'x'.repeat(16 * 1024 + 1) }, 'body.value: value must be at most 16384 bytes'],
      [['v'], /^body: /],
    ];
    for (const [body, error] of cases) {
      const answer = await api('PUT', '/credentials/GOOD_KEY', body);
      expect([answer.status, answer.body.error]).toEqual([400, typeof error === 'string' ? error : expect.stringMatching(error)]);
    }
    expect((await api('GET', '/credentials')).body.credentials).toEqual([]);
    expect((await call(rt.controlUrl, 'GET', '/credentials')).status).toBe(401);
  });

  it("never show or touch another workspace's credentials", async () => {
    const mine = client(await rt.newWorkspace());
    const theirs = client(await rt.newWorkspace());
    await mine('PUT', '/credentials/SHARED_NAME', { value: 'mine', isSecret: false });
    await theirs('PUT', '/credentials/SHARED_NAME', { value: 'theirs', isSecret: false });
    expect((await mine('GET', '/credentials')).body.credentials.map((c: { value: string }) => c.value)).toEqual(['mine']);
    expect((await theirs('DELETE', '/credentials/SHARED_NAME')).status).toBe(200);
    expect((await mine('GET', '/credentials')).body.credentials.map((c: { value: string }) => c.value)).toEqual(['mine']);
  });
});

describe('getCredential in transformations', () => {
  const USES = `export function transformEvent(event) {
  log('key is ' + getCredential('API_KEY'));
  return { ...event, key: getCredential('API_KEY'), base: getCredential('BASE'), missing: getCredential('NOPE') === undefined };
}`;

  async function setUp() {
    const ws = await rt.newWorkspace();
    const api = client(ws);
    await api('PUT', '/credentials/API_KEY', { value: SECRET });
    await api('PUT', '/credentials/BASE', { value: PLAIN, isSecret: false });
    return { ws, api };
  }

  async function testRun(api: ReturnType<typeof client>, code: string) {
    const created = await api('POST', '/transformations', { name: `T${Math.random()}`, code });
    const answer = await api('POST', '/transformations/libraries/test', {
      transformations: [{ versionId: created.body.versionId, testInput: [{ type: 'track', event: 'x', messageId: 'm-1' }] }],
    });
    expect(answer.status).toBe(200);
    return answer.body.result;
  }

  it('reads stored values in a test call, and shows a secret the code returned or logged as [secret]', async () => {
    const { api } = await setUp();
    const result = await testRun(api, USES);
    expect(result.failedTestResults).toEqual([]);
    expect(result.successTestResults[0].result).toEqual({
      output: { transformedEvents: [{ type: 'track', event: 'x', messageId: 'm-1', key: '[secret]', base: PLAIN, missing: true }] },
      logs: ['Log: key is [secret]'],
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('reads them in a publish test, and another workspace never does', async () => {
    const needsKey = `export function transformEvent(event) {\n  if (getCredential('API_KEY') !== '${SECRET}') throw new Error('no key here');\n  return event;\n}`;
    const { api } = await setUp();
    expect((await api('POST', '/transformations?publish=true', { name: 'Keyed', code: needsKey })).status).toBe(200);
    const other = client(await rt.newWorkspace());
    const refused = await other('POST', '/transformations?publish=true', { name: 'Keyed', code: needsKey });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('Error: no key here');
  });

  it('throws the exact error without a key', async () => {
    const { api } = await setUp();
    const result = await testRun(api, 'export function transformEvent(event) { return { v: getCredential() }; }');
    expect(result.failedTestResults[0].result).toMatch(/^TypeError: Key should be valid and defined/);
  });

  it('takes per-call credentials over the stored ones in the test interface, for that call only', async () => {
    const { ws, api } = await setUp();
    const bearerApi = (method: string, path: string, body?: unknown) => call(rt.controlUrl, method, path, { auth: bearer(ws.token), body });
    const destination = (await bearerApi('POST', '/v2/destinations', { name: 'h', type: 'WEBHOOK', config: { webhookUrl: 'https://example.com/h' } })).body
      .destination;
    await api('POST', '/transformations?publish=true', { name: 'Keys', code: USES, destinationIds: [destination.id] });
    const stage = { user_transform: true, dest_transform: false, send_to_destination: false };
    const message = { type: 'track', event: 'x', anonymousId: 'a' };
    const overridden = await api('POST', `/v0/testDestination/${destination.id}`, {
      message,
      stage,
      credentials: [
        { key: 'BASE', value: 'per-call', isSecret: false },
        { key: 'API_KEY', value: 'other-secret-value' },
      ],
    });
    expect(overridden.body.data[0].user_transformed_payload).toEqual({ ...message, key: '[secret]', base: 'per-call', missing: true });
    expect(JSON.stringify(overridden.body)).not.toContain('other-secret-value');
    const stored = await api('POST', `/v0/testDestination/${destination.id}`, { message, stage });
    expect(stored.body.data[0].user_transformed_payload).toEqual({ ...message, key: '[secret]', base: PLAIN, missing: true });
    const badOverride = await api('POST', `/v0/testDestination/${destination.id}`, {
      message,
      stage,
      credentials: [{ key: '1x', value: 'v' }],
    });
    expect([badOverride.status, badOverride.body.error]).toEqual([400, 'body.credentials.0.key: key must be an identifier']);
  });
});
