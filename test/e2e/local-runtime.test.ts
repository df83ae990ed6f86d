import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { start, stop } from '../support/npm-start';
import { basic, bearer, call } from '../support/runtime';

/**
 * `npm start` as a user runs it: a child process driven over HTTP and through the admin CLI, stopped with a
 * signal, leaving no process behind.
 */
jest.setTimeout(120_000);
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

const admin = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env });
  return JSON.parse(stdout.trim()) as Record<string, string>;
};

describe('npm start', () => {
  it('serves both planes, bootstraps a workspace, obeys the admin CLI and stops cleanly on SIGTERM', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'weir-e2e-'));
    const started = await start({ WEIR_HOME: home, WEIR_IN_MEMORY: '1' });
    try {
      // Generated bootstrap credentials are kept, and work.
      const credentials = JSON.parse(readFileSync(path.join(home, 'credentials.json'), 'utf8'));
      expect(started.output()).toContain(credentials.bootstrap.token);
      const mine = await call(started.control, 'POST', '/v2/sources', {
        auth: bearer(credentials.bootstrap.token),
        body: { name: 'bootstrap source' },
      });
      expect(mine.status).toBe(201);

      const created = await admin(started.env, 'workspace', 'create', '--name', 'Acme', '--email', 'Ops@Acme.test');
      expect(created).toEqual({ workspaceId: expect.any(String), email: 'ops@acme.test', token: expect.stringMatching(/^weir_/) });
      const sources = await call(started.control, 'GET', '/v2/sources', { auth: basic('ops@acme.test', created.token ?? '') });
      // The catalog takes Bearer only; Basic is refused with a reason.
      expect(sources.status).toBe(401);
      const listed = await call(started.control, 'GET', '/v2/sources', { auth: bearer(created.token ?? '') });
      expect(listed.body).toEqual({ sources: [] });

      const second = await admin(started.env, 'token', 'create', '--workspace', created.workspaceId ?? '', '--email', 'ops@acme.test');
      const third = await admin(started.env, 'token', 'create', '--workspace', created.workspaceId ?? '', '--email', 'ops@acme.test');
      const tokens = (await admin(started.env, 'token', 'list', '--workspace', created.workspaceId ?? '')) as unknown as {
        tokenId: string;
      }[];
      expect(tokens).toHaveLength(3);
      expect(tokens.map((t) => t.tokenId)).toEqual(expect.arrayContaining([second.tokenId, third.tokenId]));
      expect(JSON.stringify(tokens)).not.toContain(second.token);
      await admin(started.env, 'token', 'revoke', '--id', third.tokenId ?? '', '--workspace', created.workspaceId ?? '');
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(third.token ?? '') })).status).toBe(401);
      await admin(started.env, 'token', 'revoke', '--token', created.token ?? '');
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(created.token ?? '') })).status).toBe(401);
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(second.token ?? '') })).status).toBe(200);

      await expect(admin(started.env, 'workspace', 'create', '--name', 'x', '--email', 'not-an-email')).rejects.toThrow(/email/);

      // The API tour's curl examples, as written (only the ports and the credentials folder differ here).
      const tour = readFileSync(path.join(ROOT, 'docs/getting-started/api-tour.md'), 'utf8');
      const example = /## Try it[\s\S]*?```bash\n([\s\S]*?)```/.exec(tour)?.[1] ?? '';
      const script = example
        .replaceAll('127.0.0.1:3000', started.control.slice('http://'.length))
        .replaceAll('127.0.0.1:8080', started.data.slice('http://'.length))
        .replaceAll('./.weir/', `${home}/`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.split('\n').join('\necho\n')], { cwd: ROOT });
      const answers = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => (line === 'OK' ? line : JSON.parse(line)));
      expect(answers).toEqual([
        { status: 'ok' },
        expect.arrayContaining([expect.objectContaining({ name: 'WEBHOOK' })]),
        { source: expect.objectContaining({ name: 'Website', writeKey: expect.any(String) }) },
        { destination: expect.objectContaining({ name: 'Hook', type: 'WEBHOOK' }) },
        { sources: expect.arrayContaining([expect.objectContaining({ name: 'Website' })]) },
        expect.objectContaining({ error: 'body.name: Invalid input: expected string, received number' }),
        expect.objectContaining({ name: 'Tagger', publishedVersionId: expect.any(String), codeVersion: '1' }),
        { transformations: [expect.objectContaining({ name: 'Tagger' })] },
        expect.objectContaining({
          destinationName: 'Preview',
          data: [
            {
              user_transformed_payload: { error: 'Transformation VersionID not found' },
              dest_transformed_payload: [expect.objectContaining({ method: 'POST', endpoint: 'https://example.com/preview' })],
            },
          ],
        }),
        'OK',
        { status: 'ok' },
        [
          expect.objectContaining({
            EventType: 'track',
            EventIdentifier: 'Signed Up',
            TotalCount: 1,
            Schema: expect.objectContaining({ 'properties.plan': 'string' }),
          }),
        ],
        expect.objectContaining({
          TotalCount: 1,
          FrequentValues: expect.objectContaining({ 'properties.plan': [{ Value: 'pro', Frequency: 1 }] }),
        }),
        expect.objectContaining({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'track Signed Up' }),
      ]);

      // The SDK page's Node example, as written, with the write key of the bootstrap source.
      const sdks = readFileSync(path.join(ROOT, 'docs/getting-started/sdks.md'), 'utf8');
      const sdkExample = /From an SDK[\s\S]*?```js\n([\s\S]*?)```/.exec(sdks)?.[1] ?? '';
      const sdk = await run('node', ['-e', sdkExample.replaceAll('127.0.0.1:8080', started.data.slice('http://'.length))], {
        cwd: ROOT,
        env: { ...started.env, WRITE_KEY: mine.body.source.writeKey },
      });
      expect(sdk.stdout.trim()).toBe('flushed');
      const live = await call(started.control, 'GET', `/v2/sources/${mine.body.source.id}/live-events`, {
        auth: bearer(credentials.bootstrap.token),
      });
      expect(live.body.events).toContainEqual(
        expect.objectContaining({
          type: 'track',
          userId: 'u1',
          event: 'Trial Started',
          properties: { plan: 'pro' },
          context: expect.objectContaining({ library: expect.objectContaining({ name: 'analytics-node' }) }),
        }),
      );
    } finally {
      await stop(started);
    }
  });

  it('keeps data across restarts when persisted, and stops on SIGINT too', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'weir-e2e-'));
    const env = { WEIR_HOME: home, WEIR_BOOTSTRAP_EMAIL: 'me@example.com', WEIR_BOOTSTRAP_TOKEN: 'my-chosen-token-123' };
    const first = await start(env);
    let id: string;
    try {
      const created = await call(first.control, 'POST', '/v2/sources', { auth: bearer('my-chosen-token-123'), body: { name: 'kept' } });
      expect(created.status).toBe(201);
      id = created.body.source.id;
    } finally {
      await stop(first, 'SIGINT');
    }
    const second = await start(env);
    try {
      const again = await call(second.control, 'GET', `/v2/sources/${id}`, { auth: bearer('my-chosen-token-123') });
      expect(again.body.source.name).toBe('kept');
    } finally {
      await stop(second);
    }
  });
});
