import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../infra/local/dynamodb-local';
import { basic, bearer, call } from '../support/runtime';

/**
 * `npm start` as a user runs it: a child process driven over HTTP and through the admin CLI, stopped with a
 * signal, leaving no process behind.
 */
jest.setTimeout(120_000);
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

interface Started {
  child: ChildProcess;
  control: string;
  data: string;
  env: NodeJS.ProcessEnv;
  output: () => string;
}

async function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const [controlPort, dataPort] = [await freePort(), await freePort()];
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: String(controlPort), DATA_PLANE_PORT: String(dataPort) };
  delete fullEnv.AWS_ENDPOINT_URL_DYNAMODB;
  delete fullEnv.WEIR_TABLE;
  // Its own process group, so the test can see every process it leaves.
  const child = spawn('npm', ['start'], { cwd: ROOT, env: fullEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const control = `http://127.0.0.1:${controlPort}`;
  const data = `http://127.0.0.1:${dataPort}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await Promise.all([control, data].map((url) => fetch(`${url}/health`).then((r) => r.ok, () => false)));
    if (ok.every(Boolean)) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not answer /health within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, control, data, env: fullEnv, output: () => output };
}

function processesOfGroup(pgid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '-g', String(pgid)], { encoding: 'utf8' }).split('\n').filter((l) => l.trim());
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}

/** SIGTERM goes to npm alone (as a supervisor sends it); SIGINT to the whole group, as Ctrl-C in a terminal does. */
async function stop(started: Started, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<void> {
  const pgid = started.child.pid as number;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  process.kill(signal === 'SIGINT' ? -pgid : pgid, signal);
  await exited;
  const deadline = Date.now() + 10_000;
  while (processesOfGroup(pgid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(processesOfGroup(pgid)).toEqual([]);
}

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
      const mine = await call(started.control, 'POST', '/v2/sources', { auth: bearer(credentials.bootstrap.token), body: { name: 'bootstrap source' } });
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
      const tokens = (await admin(started.env, 'token', 'list', '--workspace', created.workspaceId ?? '')) as unknown as { tokenId: string }[];
      expect(tokens).toHaveLength(3);
      expect(tokens.map((t) => t.tokenId)).toEqual(expect.arrayContaining([second.tokenId, third.tokenId]));
      expect(JSON.stringify(tokens)).not.toContain(second.token);
      await admin(started.env, 'token', 'revoke', '--id', third.tokenId ?? '', '--workspace', created.workspaceId ?? '');
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(third.token ?? '') })).status).toBe(401);
      await admin(started.env, 'token', 'revoke', '--token', created.token ?? '');
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(created.token ?? '') })).status).toBe(401);
      expect((await call(started.control, 'GET', '/v2/sources', { auth: bearer(second.token ?? '') })).status).toBe(200);

      await expect(admin(started.env, 'workspace', 'create', '--name', 'x', '--email', 'not-an-email')).rejects.toThrow(/email/);

      // The README's curl examples, as written (only the ports and the credentials folder differ here).
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const example = /## Try it[\s\S]*?```bash\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
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
      ]);
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
