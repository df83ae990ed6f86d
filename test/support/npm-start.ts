import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { servicePort } from '../../bench/support/ports';
import { waitFor } from './wait';

/** `npm start` as a user runs it: a child process in its own process group, stopped with a signal. */
const ROOT = path.resolve(__dirname, '../..');

export interface Started {
  child: ChildProcess;
  control: string;
  data: string;
  /** The console's static site. */
  console: string;
  env: NodeJS.ProcessEnv;
  output: () => string;
}

export async function start(env: NodeJS.ProcessEnv, options: { timeoutMs?: number } = {}): Promise<Started> {
  const [controlPort, dataPort, consolePort] = [await servicePort(), await servicePort(), await servicePort()];
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    PORT: String(controlPort),
    DATA_PLANE_PORT: String(dataPort),
    CONSOLE_PORT: String(consolePort),
  };
  delete fullEnv.AWS_ENDPOINT_URL_DYNAMODB;
  delete fullEnv.WEIR_TABLE;
  // Its own process group, so the test can see every process it leaves.
  const child = spawn('npm', ['start'], { cwd: ROOT, env: fullEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const control = `http://127.0.0.1:${controlPort}`;
  const data = `http://127.0.0.1:${dataPort}`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const healthy = async () => {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    const ok = await Promise.all(
      [control, data].map((url) =>
        fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    );
    return ok.every(Boolean);
  };
  await waitFor('npm start to answer /health', healthy, Boolean, { timeoutMs, everyMs: 200 }).catch((error: Error) => {
    throw new Error(`${error.message}:\n${output}`);
  });
  return { child, control, data, console: `http://127.0.0.1:${consolePort}`, env: fullEnv, output: () => output };
}

export function processesOfGroup(pgid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '-g', String(pgid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}

/** Waits until no process of the group is left. */
const groupEnds = (pgid: number, timeoutMs: number) =>
  waitFor(
    'every process of npm start to end',
    () => processesOfGroup(pgid),
    (left) => left.length === 0,
    { timeoutMs, everyMs: 50 },
  );

/** SIGTERM goes to npm alone (as a supervisor sends it); SIGINT to the whole group, as Ctrl-C in a terminal does. */
export async function stop(started: Started, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<void> {
  const pgid = started.child.pid as number;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  process.kill(signal === 'SIGINT' ? -pgid : pgid, signal);
  await exited;
  await groupEnds(pgid, 10_000);
}

/** SIGKILL to the whole group (a crash: nothing gets to finish); resolves once every process is gone. */
export async function kill(started: Started): Promise<void> {
  const pgid = started.child.pid as number;
  process.kill(-pgid, 'SIGKILL');
  await groupEnds(pgid, 30_000);
}
