import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRequests, destinationType } from '../../shared/destinations';
import { itemBytes } from '../../shared/destinations/batching';
import { kill, start, stop, type Started } from '../support/npm-start';
import { basic, bearer, call } from '../support/runtime';
import { oneShard } from '../support/ingest-items';
import { startScriptedVendor, type ScriptedPath, type ScriptedVendor, type Step } from '../support/scripted-vendor';
import { waitFor } from '../support/wait';

/**
 * A SIGKILL of `npm start`'s process group that lands while a stream batch is being delivered, at exact points
 * of that delivery, for a webhook (one request per event) and a batch vendor (GA4's Measurement Protocol, a
 * chunk of events a request), both connected to the source: right after the first send, during a slow send once the
 * stream consumer has moved on (its checkpoint passed the record), during a parked event's retry wait, and right
 * after a position write. Each crash is followed by a restart on the same data directory; then every
 * acknowledged event must reach both destinations, none answered 2xx twice, the counters must equal what was
 * delivered with nothing left retrying, and the delivery audit (route and admin CLI) must find no event in no
 * state. Every wait has a deadline and fails naming what it waited for and what it saw.
 */
jest.setTimeout(600_000);

/**
 * The batch destination: GA4's Measurement Protocol, whose "Limitations" put 25 events in a request at most.
 * How many a request takes is read from the type (its BatchApi, for the request it builds for these events),
 * not written here, so the kill points between its requests hold whatever that number becomes.
 */
const BATCH = { type: 'GA4', kind: 'GA4', config: (baseUrl: string) => ({ apiSecret: 'ga-secret', measurementId: 'G-CRASH', baseUrl }) };

/** Anonymous users of one ingest shard: the request is one stream batch (a request over several shards is as many batches). */
const user = oneShard('user-0');

/**
 * The ith event of kill point `point`, of one of `users` anonymous users (whose order delivery keeps). GA4 combines
 * the events of one client only: they share one client_id (`integrations.GA4.clientId`). GA4 has no event id,
 * so the messageId travels as a param too, for the vendor to tell the events apart.
 */
function crashEvent(point: number, i: number, users: number) {
  const messageId = `c${point}-${i}`;
  return {
    type: 'track',
    anonymousId: user.anonymousId(`user-${i % users}`),
    event: 'Crash Tested',
    messageId,
    properties: { message_id: messageId },
    integrations: { GA4: { clientId: 'crash-client' } },
  };
}

/** Events a request of the batch destination takes, as its type says; chunks cut by bytes would move the kill points. */
function chunkSize(): number {
  const type = destinationType(BATCH.type);
  const api = type?.batch;
  if (!type || !api) throw new Error(`${BATCH.type} is not a batching destination type`);
  const built = buildRequests(type, crashEvent(9, 9999, 9999), type.config.parse(BATCH.config('http://127.0.0.1:9')));
  if (!built.ok || built.requests.length !== 1) throw new Error(`${BATCH.type} does not make one request of a crash event: ${JSON.stringify(built)}`);
  const [request] = built.requests;
  const max = typeof api.maxEvents === 'function' ? api.maxEvents(request!) : api.maxEvents;
  if (max * itemBytes(api, request!) > api.maxBytes) throw new Error(`${max} crash events pass ${BATCH.type}'s ${api.maxBytes} bytes a request`);
  return max;
}

/**
 * The batch vendor takes the events in three full chunks, then 10 more; the users of the first chunk come
 * again in those last 10 (a user whose event is parked holds its later ones).
 */
const CHUNK = chunkSize();
const USERS = 3 * CHUNK;
const EVENTS = USERS + 10;
/** How long a kill point may take to settle after its restart: the webhook's sends are one per event, each a write. */
const SETTLE_MS = 30_000 + 250 * EVENTS;
const ADMIN = { user: 'crash-admin', password: 'crash-admin-password-0123' };
const TOKEN = 'crash-points-token-0123456789abcdef';

let vendor: ScriptedVendor;
let home: string;
let env: NodeJS.ProcessEnv;
let service: Started;

interface Context {
  /** Both destinations received their nth request of this delivery (30 s at most). */
  arrived(n: number): Promise<void>;
  /** The delivery consumer's stream checkpoint moved past the record being delivered (30 s at most). */
  checkpointPassed(): Promise<void>;
  /** Held requests at both destinations are answered 200. */
  release(): void;
}

interface KillPoint {
  name: string;
  /** The answers of both destinations to the requests of the delivery, in order (then 200). */
  steps: Step[];
  crash(context: Context): Promise<void>;
}

const KILL_POINTS: KillPoint[] = [
  {
    name: 'right after the first send',
    steps: [200, 'hold'],
    crash: async (c) => c.arrived(2),
  },
  {
    name: 'during a slow send, after the stream consumer moved on',
    steps: [200, 'hold'],
    crash: async (c) => {
      await c.arrived(2);
      await c.checkpointPassed();
    },
  },
  {
    name: "during a failed event's retry wait",
    steps: [503, 200, 'hold'],
    crash: async (c) => {
      await c.arrived(3);
      await c.checkpointPassed();
    },
  },
  {
    name: 'right after a position write',
    steps: [200, 'hold', 'hold'],
    crash: async (c) => {
      await c.arrived(2);
      await c.checkpointPassed();
      c.release();
      await c.arrived(3);
    },
  },
];

interface Outcome {
  name: string;
  sourceId: string;
  acknowledged: string[];
  prefixes: Record<'webhook' | 'batch', string>;
  destinationIds: Record<'webhook' | 'batch', string>;
}

const checkpointFile = () => path.join(home, 'data', 'stream-checkpoints.delivery.json');
const checkpoint = () => (existsSync(checkpointFile()) ? readFileSync(checkpointFile(), 'utf8') : '');
const api = async (method: string, route: string, body?: unknown) => {
  const answer = await call(service.control, method, route, { auth: bearer(TOKEN), body });
  if (answer.status >= 300) throw new Error(`${method} ${route} answered ${answer.status}: ${answer.text}`);
  return answer.body;
};

interface Look {
  done: boolean;
  /** What was seen, for the failure of a wait that ends without it. */
  seen: string;
}

/** Polls `look` until it is done; after `ms`, fails naming what it waited for and what it saw last. */
const until = async (what: string, ms: number, look: () => Promise<Look> | Look) => void (await waitFor(what, look, (l) => l.done, { timeoutMs: ms }));

/** A checkpoint file's text, shortened for a failure message. */
const shown = (text: string) => (text === '' ? 'no checkpoint file' : text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** One kill point: a source with both destinations, one batch of events, the crash where it says, a restart. */
async function crashAt(point: KillPoint, index: number): Promise<Outcome> {
  const prefixes = { webhook: `/p${index}/hook`, batch: `/p${index}/batch` };
  const paths: ScriptedPath[] = [vendor.script(prefixes.webhook, point.steps), vendor.script(prefixes.batch, point.steps)];
  const source = (await api('POST', '/v2/sources', { name: `crash ${index}` })).source;
  const destinationIds = {
    webhook: (await api('POST', '/v2/destinations', { name: `hook ${index}`, type: 'WEBHOOK', config: { webhookUrl: `${vendor.url}${prefixes.webhook}` } }))
      .destination.id,
    batch: (await api('POST', '/v2/destinations', { name: `${BATCH.kind} ${index}`, type: BATCH.type, config: BATCH.config(`${vendor.url}${prefixes.batch}`) }))
      .destination.id,
  };
  for (const id of Object.values(destinationIds)) await api('POST', '/v2/connections', { sourceId: source.id, destinationId: id });

  // The checkpoint as it was when the delivery of this record began: it moves only once the record is let go.
  let before: string | undefined;
  // A first request that never comes is reported by the wait for the checkpoint, which needs it.
  void Promise.race(paths.map((p) => p.arrived(1))).then(
    () => (before = checkpoint()),
    () => undefined,
  );
  const context: Context = {
    arrived: async (n) => void (await Promise.all(paths.map((p) => p.arrived(n)))),
    checkpointPassed: () =>
      until('the delivery checkpoint to move past the record', 30_000, () => {
        const now = checkpoint();
        if (before === undefined) return { done: false, seen: 'no request of the delivery arrived, so its checkpoint was never taken' };
        return { done: now !== before, seen: `the checkpoint still at ${shown(now)}` };
      }),
    release: () => paths.forEach((p) => p.release()),
  };
  // One stream batch, whose sends go one after another, so each kill point lands where it says.
  const batch = Array.from({ length: EVENTS }, (_, i) => crashEvent(index, i, USERS));
  const answer = await call(service.data, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } });
  expect(answer.status).toBe(200);
  try {
    await point.crash(context);
  } catch (error) {
    throw new Error(`${point.name}: ${(error as Error).message}`, { cause: error });
  }
  await kill(service);
  paths.forEach((p) => p.heal());
  service = await start(env, { timeoutMs: 90_000 });
  return { name: point.name, sourceId: source.id, acknowledged: batch.map((e) => e.messageId), prefixes, destinationIds };
}

/** Whether a kill point's events have all arrived and are counted, and at each destination how far they are. */
async function settled(outcome: Outcome): Promise<Look> {
  let done = true;
  const seen: string[] = [];
  for (const kind of ['webhook', 'batch'] as const) {
    const delivered = vendor.delivered(outcome.prefixes[kind]);
    const stats = await api('GET', `/v2/destinations/${outcome.destinationIds[kind]}/outcomes`);
    const received = outcome.acknowledged.filter((id) => delivered.has(id)).length;
    if (received !== outcome.acknowledged.length || stats.retrying !== 0 || stats.delivered !== delivered.size) done = false;
    seen.push(
      `${kind}: ${received} of ${outcome.acknowledged.length} events received, ${stats.delivered} counted delivered of ${delivered.size} answered 2xx, ${stats.retrying} retrying`,
    );
  }
  return { done, seen: seen.join('; ') };
}

beforeAll(async () => {
  vendor = await startScriptedVendor();
  home = mkdtempSync(path.join(tmpdir(), 'weir-crash-'));
  env = {
    WEIR_HOME: home,
    WEIR_BOOTSTRAP_EMAIL: 'ops@example.com',
    WEIR_BOOTSTRAP_TOKEN: TOKEN,
    WEIR_ADMIN_USER: ADMIN.user,
    WEIR_ADMIN_PASSWORD: ADMIN.password,
    WEIR_OUTBOUND_ALLOWLIST: '127.0.0.1',
    // A parked event waits 2 s for its retry (the crash lands in that wait); a dead owner's lease ends after 3 s.
    WEIR_DELIVERY_RETRY_BASE_MS: '2000',
    WEIR_DELIVERY_LEASE_MS: '3000',
    WEIR_SCHEDULER_INTERVAL_MS: '250',
    LOG_LEVEL: 'ERROR',
  };
  service = await start(env, { timeoutMs: 90_000 });
});

afterAll(async () => {
  // A start that failed leaves a group that is already gone: nothing to stop.
  if (service && service.child.exitCode === null && service.child.signalCode === null) await stop(service, 'SIGINT');
  await vendor?.close();
});

describe('a crash in the middle of a stream batch', () => {
  const outcomes: Outcome[] = [];
  const reports = new Map<string, { lost: Record<string, number>; counters: Record<string, unknown>; audit: Record<string, unknown> }>();

  beforeAll(async () => {
    for (const [i, point] of KILL_POINTS.entries()) {
      const outcome = await crashAt(point, i);
      outcomes.push(outcome);
      // Each kill point settles before the next crash, so that one crash's recovery is not cut by the next.
      await until(`${point.name}: every event delivered and counted after the restart`, SETTLE_MS, () => settled(outcome));
      const lost: Record<string, number> = {};
      const counters: Record<string, unknown> = {};
      const audit: Record<string, unknown> = {};
      const audited = await call(service.data, 'GET', `/admin/audit?sourceId=${outcome.sourceId}`, { auth: basic(ADMIN.user, ADMIN.password) });
      for (const kind of ['webhook', 'batch'] as const) {
        const found = audited.body.destinations.find((d: { destinationId: string }) => d.destinationId === outcome.destinationIds[kind]);
        audit[kind] = { events: audited.body.events, states: found.states, missing: found.missing, countersExact: found.countersExact };
        const delivered = vendor.delivered(outcome.prefixes[kind]);
        lost[kind] = outcome.acknowledged.filter((id) => !delivered.has(id)).length;
        const stats = await api('GET', `/v2/destinations/${outcome.destinationIds[kind]}/outcomes`);
        counters[kind] = { delivered: stats.delivered, retrying: stats.retrying, aborted: stats.aborted, received: delivered.size };
      }
      reports.set(point.name, { lost, counters, audit });
    }
  });

  test.each(KILL_POINTS.map((p) => p.name))('%s: every acknowledged event reaches both destinations', (name) => {
    expect(reports.get(name)!.lost).toEqual({ webhook: 0, batch: 0 });
  });

  test.each(KILL_POINTS.map((p) => p.name))('%s: counters equal what each destination answered 2xx, nothing left retrying', (name) => {
    const { counters } = reports.get(name)!;
    for (const kind of ['webhook', 'batch']) {
      const c = counters[kind] as { delivered: number; retrying: number; aborted: number; received: number };
      expect({ kind, delivered: c.delivered, retrying: c.retrying, aborted: c.aborted }).toEqual({ kind, delivered: c.received, retrying: 0, aborted: 0 });
    }
  });

  test.each(KILL_POINTS.map((p) => p.name))('%s: the audit finds every stored event delivered at both destinations, none in no state', (name) => {
    const nothing = { retrying: 0, aborted: 0, filtered: 0, suppressed: 0, duplicate: 0, inProgress: 0, unrecorded: 0, notExpected: 0, missing: 0 };
    for (const kind of ['webhook', 'batch']) {
      expect({ kind, ...(reports.get(name)!.audit[kind] as object) }).toEqual({
        kind,
        events: EVENTS,
        states: { ...nothing, delivered: EVENTS },
        missing: [],
        countersExact: true,
      });
    }
  });

  test('the admin CLI audits a source as the route does', () => {
    const source = outcomes.at(-1)!.sourceId;
    const cli = execFileSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../infra/local/admin.ts'), 'audit', '--source', source], {
      encoding: 'utf8',
      env: { ...process.env, WEIR_HOME: home },
    });
    const report = JSON.parse(cli) as { sourceId: string; missing: number; destinations: { countersExact: boolean }[] };
    expect({ sourceId: report.sourceId, missing: report.missing, exact: report.destinations.map((d) => d.countersExact) }).toEqual({
      sourceId: source,
      missing: 0,
      exact: [true, true],
    });
  });

  test(`the batch vendor's first request of each delivery is one full chunk (${CHUNK} events), so the kill points fall between chunks`, () => {
    for (const outcome of outcomes) {
      const first = vendor.answered.find((a) => a.prefix === outcome.prefixes.batch);
      expect({ point: outcome.name, first: first?.messageIds }).toEqual({ point: outcome.name, first: outcome.acknowledged.slice(0, CHUNK) });
    }
  });

  test('no event is answered 2xx twice (every answer before a crash was recorded before the next send)', () => {
    for (const outcome of outcomes)
      for (const prefix of Object.values(outcome.prefixes)) expect({ prefix, twice: vendor.deliveredTwice(prefix) }).toEqual({ prefix, twice: [] });
  });
});
