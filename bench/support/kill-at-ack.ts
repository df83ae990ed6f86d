import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { servicePort } from './ports';
import { burstOf, KINDS, type Kind, type Sent } from './kill-at-ack-requests';

/**
 * A SIGKILL of the local runtime's whole process group at the instant its first 200 reaches the client, over and
 * over, each time restarted on the same data directory and ports: an acknowledged request must be stored and
 * delivered whatever the store had queued behind that answer (issue 39: DynamoDB Local answered a transaction
 * before committing it). The runtime is started as `npm start` starts it (`node --import tsx infra/local/start.ts`,
 * in its own process group), with two webhook destinations played by a server in this process, which outlives
 * the kills and records every messageId each receives.
 *
 * Each cycle has a `javascript` source of its own, connected to both webhooks and made on the first start, so that
 * its burst carries a source's first events (stored in a transaction with the source's first-event time, the case
 * of the issue), every other one with 4 ingest shards (a request of many users then stored as a claim and
 * parts); the burst also sends to a source whose events were stored before (plain writes). The kill lands in the
 * answer's callback, synchronously, not on a timer. After the last kill the runtime starts once more: each
 * acknowledged event is looked for among its source's stored events (live events), and the runtime runs until every
 * stored one has reached both webhooks (or the time runs out); then the delivery audit of each source is read.
 */
export interface KillAtAckOptions {
  kills: number;
  /** How long the last start may take to deliver every acknowledged event (default 120 s). */
  settleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface KillAtAckReport {
  kills: number;
  acknowledgedRequests: number;
  acknowledgedEvents: number;
  /** Per kind of request: sent, and answered 200. */
  byKind: Record<Kind, { sent: number; acknowledged: number }>;
  /** Acknowledged events missing from their source's stored events, and from each webhook. */
  notStored: string[];
  notDelivered: { a: string[]; b: string[] };
  /** Acknowledged events not stored or not delivered to both webhooks. */
  lost: string[];
  /** Acknowledged requests with at least one lost event. */
  lostRequests: number;
  /** The delivery audits of every source: stored events, and events in no state at some destination. */
  audit: { events: number; missing: number };
  /** Mean seconds of a cycle after the first (start, burst, kill, group gone), and of the start alone. */
  secondsPerKill: number;
  secondsPerStart: number;
  /** Processes of the last group, and DynamoDB Local JVMs on the data directory, after the final stop. */
  leftRunning: string[];
}

const ROOT = path.resolve(__dirname, '../..');
const TOKEN = 'kill-at-ack-token-0123456789abcdef';
const ADMIN = { user: 'kill-admin', password: 'kill-admin-password-0123' };

/** The two webhooks: every messageId each received (a redelivery counts once). */
async function webhooks() {
  const received = { a: new Set<string>(), b: new Set<string>() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
      try {
        const { messageId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId?: unknown };
        if ((name === 'a' || name === 'b') && typeof messageId === 'string') received[name].add(messageId);
      } catch {
        // not an event: answered all the same
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether any process of the group is left (kill with signal 0 fails with ESRCH once none is). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function processesOfGroup(pgid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '-g', String(pgid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}

/** DynamoDB Local JVMs serving this data directory, whichever group they are in. */
function storesOn(dataDir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', `DynamoDBLocal.*-dbPath ${dataDir}`], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** The runtime, as `npm start` runs it, in a process group of its own, on fixed ports and a fixed directory. */
class Runtime {
  child?: ChildProcess;
  output = '';
  /**
   * Whether the group was seen empty: its id may then be given to another process (pids wrap at 32768), so it
   * is never signalled again.
   */
  ended = true;
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly control: string,
    readonly data: string,
  ) {}

  get pgid(): number {
    return this.child?.pid ?? 0;
  }

  async start(): Promise<void> {
    this.output = '';
    this.ended = false;
    this.child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
      cwd: ROOT,
      env: this.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (c: Buffer) => (this.output = (this.output + c.toString()).slice(-10_000));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    const child = this.child;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const up = await Promise.all(
        [this.control, this.data].map((url) =>
          fetch(`${url}/health`).then(
            (r) => r.ok,
            () => false,
          ),
        ),
      );
      if (up.every(Boolean)) return;
      if (Date.now() > deadline || child.exitCode !== null) {
        this.killGroup();
        throw new Error(`the runtime did not answer /health:\n${this.output}`);
      }
      await sleep(25);
    }
  }

  /** SIGKILL to the whole group, at once (no await before it: the caller may be an answer's callback). */
  killGroup(): void {
    if (this.pgid && !this.ended && groupAlive(this.pgid)) process.kill(-this.pgid, 'SIGKILL');
  }

  /** Resolves once no process of the group is left. */
  async gone(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.pgid && !this.ended && groupAlive(this.pgid)) {
      if (Date.now() > deadline) throw new Error(`the process group ${this.pgid} was still running:\n${processesOfGroup(this.pgid).join('\n')}`);
      await sleep(10);
    }
    this.ended = true;
  }

  /** Ctrl-C: SIGINT to the group, which stops gracefully. */
  async interrupt(): Promise<void> {
    if (!this.pgid || this.ended || !groupAlive(this.pgid)) return;
    process.kill(-this.pgid, 'SIGINT');
    await this.gone(60_000).catch(() => this.killGroup());
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api<T = any>(base: string, method: string, route: string, body?: unknown, auth = `Bearer ${TOKEN}`): Promise<T> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Sends the burst's requests at once; the first 200 to arrive kills the group in its callback. Answers every
 * request's status: 200 (acknowledged, including answers already on their way when the kill fell), another
 * status, or 0 when the connection was cut before an answer.
 */
function burst(runtime: Runtime, requests: Sent[]): Promise<number[]> {
  const target = new URL(runtime.data);
  let killed = false;
  return Promise.all(
    requests.map(
      (r) =>
        new Promise<number>((resolve) => {
          const req = request({ host: target.hostname, port: target.port, method: 'POST', path: r.path, headers: r.headers, agent: false }, (res) => {
            if (res.statusCode === 200 && !killed) {
              killed = true;
              runtime.killGroup();
            }
            const status = res.statusCode ?? 0;
            res.on('error', () => resolve(status));
            res.on('close', () => resolve(status));
            res.resume();
          });
          req.on('error', () => resolve(0));
          req.end(r.body);
        }),
    ),
  );
}

/** Every messageId stored for a source (its live events, page by page: `paging.next` is the next page's route). */
async function storedOf(control: string, sourceId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let route: string | undefined = `/v2/sources/${sourceId}/live-events?limit=200`;
  while (route) {
    const page: { events: { messageId?: unknown }[]; paging: { next?: string } } = await api(control, 'GET', route);
    for (const event of page.events) if (typeof event.messageId === 'string') ids.add(event.messageId);
    route = page.paging.next;
  }
  return ids;
}

export async function runKillAtAck(options: KillAtAckOptions): Promise<KillAtAckReport> {
  const log = options.log ?? (() => undefined);
  const hooks = await webhooks();
  const home = mkdtempSync(path.join(tmpdir(), 'weir-kill-at-ack-'));
  const dataDir = path.join(home, 'data');
  const [controlPort, dataPort, consolePort] = [await servicePort(), await servicePort(), await servicePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WEIR_HOME: home,
    WEIR_DATA_DIR: dataDir,
    PORT: String(controlPort),
    DATA_PLANE_PORT: String(dataPort),
    CONSOLE_PORT: String(consolePort),
    WEIR_BOOTSTRAP_EMAIL: 'ops@example.com',
    WEIR_BOOTSTRAP_TOKEN: TOKEN,
    WEIR_ADMIN_USER: ADMIN.user,
    WEIR_ADMIN_PASSWORD: ADMIN.password,
    WEIR_OUTBOUND_ALLOWLIST: '127.0.0.1',
    // A killed owner's lease on a delivery ends soon, and a failed send is tried again soon.
    WEIR_DELIVERY_LEASE_MS: '3000',
    WEIR_DELIVERY_RETRY_BASE_MS: '300',
    WEIR_SCHEDULER_INTERVAL_MS: '250',
    LOG_LEVEL: 'ERROR',
    // DynamoDB Local's JVM starts a few seconds sooner without the optimising compiler and with one GC thread
    // (a start is most of a cycle); it stores and answers as it does otherwise.
    JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
  };
  // A test run's own store and table are not the runtime's.
  delete env.AWS_ENDPOINT_URL_DYNAMODB;
  delete env.WEIR_TABLE;
  const runtime = new Runtime(env, `http://127.0.0.1:${controlPort}`, `http://127.0.0.1:${dataPort}`);

  const byKind = Object.fromEntries(KINDS.map((k) => [k, { sent: 0, acknowledged: 0 }])) as KillAtAckReport['byKind'];
  const acknowledged = new Map<string, string[]>(); // messageId → its request's messageIds
  const sources: string[] = [];
  let acknowledgedRequests = 0;
  let cycleMs = 0;
  let startMs = 0;
  try {
    await runtime.start();
    const destinations: string[] = [];
    for (const name of ['a', 'b']) {
      const config = { webhookUrl: `${hooks.url}/${name}` };
      destinations.push((await api(runtime.control, 'POST', '/v2/destinations', { name: `hook ${name}`, type: 'WEBHOOK', config })).destination.id as string);
    }
    const connect = async (sourceId: string) => {
      for (const destinationId of destinations) await api(runtime.control, 'POST', '/v2/connections', { sourceId, destinationId });
    };
    const steady = (await api(runtime.control, 'POST', '/v2/sources', { name: 'app', type: 'javascript' })).source;
    await connect(steady.id);
    // Each cycle's source is made now, in a process that is up for a while, rather than in the short-lived ones.
    const fresh: { id: string; writeKey: string }[] = [];
    for (let cycle = 0; cycle < options.kills; cycle++) {
      const body = { name: `web ${cycle}`, type: 'javascript', ingestShards: cycle % 2 === 0 ? 1 : 4 };
      fresh.push((await api(runtime.control, 'POST', '/v2/sources', body)).source);
      await connect(fresh[cycle]!.id);
    }
    sources.push(steady.id, ...fresh.map((f) => f.id));

    for (let cycle = 0; cycle < options.kills; cycle++) {
      const t = Date.now();
      if (cycle > 0) await runtime.start();
      startMs += Date.now() - t;
      const requests = burstOf(cycle, fresh[cycle]!.writeKey, steady.writeKey);
      const statuses = await burst(runtime, requests);
      await runtime.gone();
      const unexpected = statuses.map((s, i) => [s, requests[i]!] as const).filter(([s]) => s !== 0 && s !== 200);
      if (unexpected.length > 0) throw new Error(`cycle ${cycle}: ${unexpected.map(([s, r]) => `${r.kind} answered ${s}`).join(', ')}`);
      if (!statuses.includes(200)) throw new Error(`cycle ${cycle}: no request was answered 200`);
      statuses.forEach((status, i) => {
        const r = requests[i]!;
        byKind[r.kind].sent++;
        if (status !== 200) return;
        byKind[r.kind].acknowledged++;
        acknowledgedRequests++;
        for (const id of r.messageIds) acknowledged.set(id, r.messageIds);
      });
      if (cycle > 0) cycleMs += Date.now() - t;
      if ((cycle + 1) % 25 === 0 || cycle + 1 === options.kills) {
        log(`${cycle + 1} kills, ${acknowledgedRequests} acknowledged requests, ${(cycleMs / Math.max(1, cycle) / 1000).toFixed(2)} s a kill`);
      }
    }

    // The last start: the stored events first (what is not stored by now never will be), then it delivers what
    // every killed process left, until both webhooks have each stored acknowledged event.
    await runtime.start();
    const stored = new Set<string>();
    for (const sourceId of sources) for (const id of await storedOf(runtime.control, sourceId)) stored.add(id);
    const notStored = [...acknowledged.keys()].filter((id) => !stored.has(id));
    const deadline = Date.now() + (options.settleTimeoutMs ?? 120_000);
    const undelivered = (name: 'a' | 'b') => [...acknowledged.keys()].filter((id) => !hooks.received[name].has(id));
    const waiting = () => [...undelivered('a'), ...undelivered('b')].some((id) => stored.has(id));
    while (waiting() && Date.now() < deadline) await sleep(250);
    const notDelivered = { a: undelivered('a'), b: undelivered('b') };

    const audit = { events: 0, missing: 0 };
    const admin = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;
    for (const sourceId of sources) {
      const report = await api<{ events: number; missing: number }>(runtime.data, 'GET', `/admin/audit?sourceId=${sourceId}`, undefined, admin);
      audit.events += report.events;
      audit.missing += report.missing;
    }
    const lost = [...new Set([...notStored, ...notDelivered.a, ...notDelivered.b])];
    const lostRequests = new Set(lost.map((id) => acknowledged.get(id)!.join(','))).size;
    if (lost.length > 0) log(`lost: ${lost.slice(0, 20).join(', ')}${lost.length > 20 ? ', …' : ''}`);
    await runtime.interrupt();
    const leftRunning = [...(runtime.ended ? [] : processesOfGroup(runtime.pgid)), ...storesOn(dataDir)];
    return {
      kills: options.kills,
      acknowledgedRequests,
      acknowledgedEvents: acknowledged.size,
      byKind,
      notStored,
      notDelivered,
      lost,
      lostRequests,
      audit,
      secondsPerKill: cycleMs / Math.max(1, options.kills - 1) / 1000,
      secondsPerStart: startMs / Math.max(1, options.kills - 1) / 1000,
      leftRunning,
    };
  } catch (error) {
    log(runtime.output);
    throw error;
  } finally {
    runtime.killGroup();
    await runtime.gone().catch(() => undefined);
    await hooks.close();
    if (storesOn(dataDir).length === 0) rmSync(home, { recursive: true, force: true });
  }
}
