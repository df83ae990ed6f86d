import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { servicePort } from '../../bench/support/ports';

/**
 * A throw-away PostgreSQL server on a free loopback port, its cluster in a temp dir, with one password user.
 * Needs Debian's `postgresql` (initdb and postgres on the PATH or in /usr/lib/postgresql/<version>/bin).
 * initdb and postgres refuse to run as root: as root they run as the `postgres` user (else `nobody`) through
 * setpriv, which execs the server in place, so stopping the child stops the server itself.
 */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** The binaries' folder (psql is there too). */
  bin: string;
  /** A connected client as the server's user (the caller ends it). */
  connect(database?: string): Promise<Client>;
  stop(): Promise<void>;
}

const USER = 'weir';
const PASSWORD = 'weir-test-password';

/** The folder holding initdb: the PATH's, else the newest of /usr/lib/postgresql/<version>/bin. */
export function postgresBin(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return path.dirname(onPath);
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed: no initdb on the PATH or under /usr/lib/postgresql (apt-get install postgresql)');
  return path.join(root, newest, 'bin');
}

/** As root, the unprivileged account the server runs as (uid, gid); otherwise undefined: run as oneself. */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const entry = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.trim();
    const [, , uid, gid] = entry.split(':');
    if (uid && gid) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error('running as root, and neither a postgres nor a nobody account exists to run PostgreSQL as');
}

/** The command line that runs `binary` as `account` (setpriv execs it, keeping the pid). */
function asAccount(account: { uid: number; gid: number } | undefined, binary: string, args: string[]): [string, string[]] {
  if (!account) return [binary, args];
  return ['setpriv', [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--', binary, ...args]];
}

function initCluster(bin: string, dir: string, account: ReturnType<typeof serverAccount>): void {
  const pwfile = path.join(dir, 'pwfile');
  writeFileSync(pwfile, `${PASSWORD}\n`);
  const data = path.join(dir, 'data');
  if (account) {
    chownSync(dir, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  const [command, args] = asAccount(account, path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    USER,
    '--pwfile',
    pwfile,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const init = spawnSync(command, args, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.error?.message ?? ''}${init.stderr}${init.stdout}`);
}

async function answers(port: number): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres', connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Initialises a cluster, starts postgres on it (durability off: a test's data need not survive), waits until it answers. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBin();
  const account = serverAccount();
  const dir = mkdtempSync(path.join(tmpdir(), 'weir-pg-'));
  chmodSync(dir, 0o700);
  initCluster(bin, dir, account);
  const port = await servicePort();
  const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${dir}`, 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
  const [command, args] = asAccount(account, path.join(bin, 'postgres'), [
    '-D',
    path.join(dir, 'data'),
    '-p',
    String(port),
    ...settings.flatMap((s) => ['-c', s]),
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && !spawnError) {
      // SIGINT: PostgreSQL's fast shutdown (active sessions are ended, not waited for).
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  while (!(await answers(port))) {
    if (spawnError || child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`postgres did not start on port ${port}: ${spawnError?.message ?? output.trim()}`);
    }
    await sleep(100);
  }
  const connect = async (database = 'postgres') => {
    const client = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database });
    await client.connect();
    return client;
  };
  return { host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres', bin, connect, stop };
}
