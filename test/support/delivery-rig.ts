import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeOptions } from '../../infra/local/runtime';
import { DESTINATION_TIMEOUT_ENV, DESTINATION_TIMEOUT_MS } from '../../shared/destinations/http-client';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { shutdownSandbox } from '../../shared/sandbox';
import { json, messageIdsAt, startDestinationServer, type DestinationServer } from './destination-server';
import { basic, bearer, call, startTestRuntime, type TestRuntime } from './runtime';

export interface DeliveryRig {
  rt: TestRuntime;
  /** The local server the test's destinations send to; its requests are cleared before each test. */
  server: DestinationServer;
}

export interface DeliveryRigOptions {
  /**
   * Each destination request's time-out: by default the service's own (10 s), so that a loaded machine's slow
   * answer is never taken for a failure; a suite that waits for a send to time out sets a short one.
   */
  destinationTimeoutMs?: number;
  /** Options of the local runtime (default: the scheduler left to the test, which runs it with runNow). */
  runtime?: Partial<RuntimeOptions>;
}

/**
 * The setting of a delivery suite: the local runtime on the run's DynamoDB Local and a local HTTP server as
 * the destination, requests to 127.0.0.1 allowed, each send bounded; all stopped after the file. Call it at
 * the top of a test file; `rt` and `server` are there once the file's tests run.
 */
export function deliveryRig(options: DeliveryRigOptions = {}): DeliveryRig {
  const rig = {} as DeliveryRig;
  beforeAll(async () => {
    process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
    process.env[DESTINATION_TIMEOUT_ENV] = String(options.destinationTimeoutMs ?? DESTINATION_TIMEOUT_MS);
    rig.rt = await startTestRuntime(options.runtime ?? { schedulerIntervalMs: 0 });
    rig.server = await startDestinationServer();
  });
  afterAll(async () => {
    delete process.env[OUTBOUND_ALLOWLIST_ENV];
    delete process.env[DESTINATION_TIMEOUT_ENV];
    await rig.server.close();
    await rig.rt.stop();
    await shutdownSandbox();
  });
  beforeEach(() => (rig.server.received.length = 0));
  return rig;
}

/** A destination as POST /v2/destinations takes it. */
export type DestinationSpec = { name: string; type: string; config: Record<string, unknown> };

/** A webhook destination sending to `path` on the rig's server (named after the path unless `name` is given). */
export const webhookAt = (rig: DeliveryRig, path: string, name = path): DestinationSpec => ({
  name,
  type: 'WEBHOOK',
  config: { webhookUrl: `${rig.server.url}${path}` },
});

/** An Amplitude destination sending to `path` on the rig's server (named after the path unless `name` is given). */
export const amplitudeAt = (rig: DeliveryRig, path: string, name = path, apiKey = 'key'): DestinationSpec => ({
  name,
  type: 'AM',
  config: { apiKey, baseUrl: `${rig.server.url}${path}` },
});

/** An event as an Amplitude destination sends it. */
export type AmplitudeEvent = { insert_id: string; user_id: string; event_type: string };

/** The events of each request the rig's server got at the Amplitude destination sending to `path`. */
export const amplitudeRequestsAt = (rig: DeliveryRig, path: string) =>
  rig.server.received.filter((r) => r.path === `${path}/2/httpapi`).map((r) => (r.json as { events: AmplitudeEvent[] }).events);

/**
 * A fresh workspace with a source (named "app" unless `options` says otherwise, with `options`): its control-plane
 * client, `connect` (a destination made and connected to the source; its id), a sender of one request of events
 * (200 expected), and a destination's outcomes.
 */
export async function sourcePipeline(rig: DeliveryRig, options: Record<string, unknown> = {}) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, route: string, body?: unknown) => call(rig.rt.controlUrl, method, route, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app', ...options })).body.source as { id: string; writeKey: string };
  const connect = async (destination: DestinationSpec) => {
    const d = (await api('POST', '/v2/destinations', destination)).body.destination as { id: string };
    await api('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id });
    return d.id;
  };
  const batch = async (events: Record<string, unknown>[]) =>
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch: events } })).status).toBe(200);
  const outcomes = async (destinationId: string) => (await api('GET', `/v2/destinations/${destinationId}/outcomes`)).body;
  return { ws, api, source, connect, batch, outcomes };
}

/**
 * A fresh workspace with a source connected to a webhook on the rig's server (answering 200 at `path`): its
 * control-plane client, a sender of one request of events (200 expected), and the messageIds the webhook got.
 */
export async function webhookPipeline(rig: DeliveryRig, path = '/hook') {
  rig.server.on(path, json(200, {}));
  const { ws, api, source, connect, batch } = await sourcePipeline(rig);
  const hook = { id: await connect(webhookAt(rig, path, 'hook')) };
  return { ws, api, source, hook, send: batch, received: () => messageIdsAt(rig.server, path) };
}

/** A workspace with a source connected to one webhook destination per path given. */
export async function webhooksPipeline(rig: DeliveryRig, ...paths: string[]) {
  const { ws, api, source, connect, outcomes } = await sourcePipeline(rig);
  const destinations: string[] = [];
  for (const path of paths) destinations.push(await connect(webhookAt(rig, path)));
  return {
    ws,
    api,
    source,
    destinations,
    track: (body: Record<string, unknown>, type = 'track') => call(rig.rt.dataUrl, 'POST', `/v1/${type}`, { auth: basic(source.writeKey, ''), body }),
    batch: (batch: Record<string, unknown>[]) => call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } }),
    publish: async (code: string) => {
      const created = await call(rig.rt.controlUrl, 'POST', '/transformations?publish=true', {
        auth: basic(ws.email, ws.token),
        body: { name: `T${Math.random()}`, code, destinationIds: destinations },
      });
      expect(created.status).toBe(200);
      return created.body.id as string;
    },
    outcomes: async (i = 0) => outcomes(destinations[i]!),
  };
}

const round = async (rig: DeliveryRig) => {
  await sleep(40);
  await rig.rt.scheduler.runNow();
};

/** Hands everything written so far to the consumers, then runs the scheduler until nothing is due. */
export async function flowThrough(rig: DeliveryRig, rounds = 1) {
  await rig.rt.poller.drain();
  for (let i = 0; i < rounds; i++) await round(rig);
}

/**
 * Hands everything written so far to the consumers, then runs scheduler rounds until `settled` holds (at most
 * `rounds` of them), and one round more: a round with nothing due must change nothing, which the test's own
 * assertions then check. For waits whose end can be read (the outcome counters), instead of a fixed number of
 * rounds sized for a loaded machine.
 */
export async function flowUntil(rig: DeliveryRig, settled: () => Promise<boolean>, rounds: number) {
  await rig.rt.poller.drain();
  for (let i = 0; i < rounds; i++) {
    await round(rig);
    if (await settled()) return round(rig);
  }
}
