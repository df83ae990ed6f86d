import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { servicePort } from '../../bench/support/ports';

/** A throw-away redis-server on a free loopback port, in memory only. Needs `redis-server` on the PATH. */
export interface RedisServer {
  host: string;
  port: number;
  /** `host:port`, as a Redis destination's config names it. */
  address: string;
  stop(): Promise<void>;
}

/** Whether anything answers a PING on the port (+PONG, or -NOAUTH from a server with a password). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(/^[+-]/.test(chunk.toString())));
  });
}

/** Starts redis-server with `args` added (e.g. `['--requirepass', 'secret']`) and waits until it answers. */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const port = await servicePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || spawnError) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (spawnError || child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not start on port ${port}: ${spawnError?.message ?? output.trim()}`);
    }
    await sleep(50);
  }
  return { host: '127.0.0.1', port, address: `127.0.0.1:${port}`, stop };
}
