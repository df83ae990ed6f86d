import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { servicePort } from './ports';

const ROOT = path.resolve(__dirname, '../..');

function groupProcesses(pgid: number): string[] {
  try {
    // A process that exited and waits to be reaped (`Z`, its parent gone first) holds nothing: it is not running.
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pgid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() && !/^\s*\d+\s+Z/.test(l));
  } catch {
    return [];
  }
}

/** `npm start` in its own process group, as a terminal runs it. */
export class StartedService {
  child?: ChildProcess;
  output = '';
  control = '';
  data = '';

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  async start(): Promise<void> {
    const [controlPort, dataPort, consolePort] = [await servicePort(), await servicePort(), await servicePort()];
    // Free ports for all three, the console's too: another `npm start` on this machine may hold the default.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.env,
      PORT: String(controlPort),
      DATA_PLANE_PORT: String(dataPort),
      CONSOLE_PORT: String(consolePort),
    };
    delete env.AWS_ENDPOINT_URL_DYNAMODB;
    delete env.WEIR_TABLE;
    this.child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (c: Buffer) => (this.output = (this.output + c.toString()).slice(-20_000)));
    this.child.stderr?.on('data', (c: Buffer) => (this.output = (this.output + c.toString()).slice(-20_000)));
    this.control = `http://127.0.0.1:${controlPort}`;
    this.data = `http://127.0.0.1:${dataPort}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await Promise.all(
        [this.control, this.data].map((url) =>
          fetch(`${url}/health`).then(
            (r) => r.ok,
            () => false,
          ),
        ),
      );
      if (ok.every(Boolean)) return;
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`npm start did not come up:\n${this.output}`);
      await sleep(100);
    }
  }

  /** A signal to the whole group (what Ctrl-C or a SIGKILL of the group does); resolves once every process is gone. */
  async signal(signal: 'SIGKILL' | 'SIGTERM' | 'SIGINT'): Promise<void> {
    const pgid = this.child?.pid;
    if (!pgid) return;
    process.kill(-pgid, signal);
    const deadline = Date.now() + 60_000;
    while (groupProcesses(pgid).length > 0 && Date.now() < deadline) await sleep(100);
    // A restart on the same directory while the old group still runs would put two stores on the same files.
    const left = groupProcesses(pgid);
    if (left.length > 0) {
      process.kill(-pgid, 'SIGKILL');
      throw new Error(`the process group was still running 60 s after ${signal}:\n${left.join('\n')}`);
    }
  }

  leftRunning(): string[] {
    return this.child?.pid ? groupProcesses(this.child.pid) : [];
  }
}
