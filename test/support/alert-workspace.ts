import { setTimeout as sleep } from 'node:timers/promises';
import { ALERTS_SNS_TOPIC_PREFIX_ENV } from '../../shared/alerts/sns-mail';
import type { DeliveryRig } from './delivery-rig';
import { json } from './destination-server';
import { basic, bearer, call } from './runtime';
import { startSnsServer, type SnsServer } from './sns-server';

/** A fresh workspace with a source, and a sender of `count` events of distinct users handed to the consumers. */
export async function alertWorkspace(rig: DeliveryRig) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  let n = 0;
  const send = async (count: number) => {
    const batch = Array.from({ length: count }, () => ({ type: 'track', event: 'e', userId: `user-${n}`, messageId: `m-${n++}` }));
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
    await rig.rt.poller.drain();
  };
  return { ws, api, source, send };
}

/**
 * A webhook destination of the workspace's source that answers 503 until `recover` (then 200, the scheduler run
 * once so held records go out), and a rule "Webhook failing" on its success rate that tells `channel`: its answer.
 */
export async function flappingWebhookRule(rig: DeliveryRig, w: Awaited<ReturnType<typeof alertWorkspace>>, channel: Record<string, unknown>) {
  let failing = true;
  rig.server.on('/flappy', (req, res) => (failing ? json(503, {}) : json(200, {}))(req, res));
  const destination = (await w.api('POST', '/v2/destinations', { name: 'flappy', type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}/flappy` } })).body
    .destination;
  await w.api('POST', '/v2/connections', { sourceId: w.source.id, destinationId: destination.id });
  const created = await w.api('POST', '/v2/alert-rules', {
    name: 'Webhook failing',
    condition: { kind: 'destination-success-rate', destinationId: destination.id, belowPercent: 50, minutes: 1, minAttempts: 3 },
    channel,
  });
  const recover = async () => {
    failing = false;
    await sleep(50);
    await rig.rt.scheduler.runNow();
  };
  return { created, recover };
}

/**
 * SNS played locally for the file's tests, reached through AWS_ENDPOINT_URL_SNS, the workspaces' topics named
 * from `prefix`; after each test its calls are answered again and the prefix is set back. The server is there
 * once the file's tests run.
 */
export function localSns(prefix: string): SnsServer {
  const sns = {} as SnsServer;
  beforeAll(async () => {
    Object.assign(sns, await startSnsServer({ region: () => process.env.AWS_REGION ?? '' }));
    process.env.AWS_ENDPOINT_URL_SNS = sns.url;
    process.env[ALERTS_SNS_TOPIC_PREFIX_ENV] = prefix;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SNS;
    delete process.env[ALERTS_SNS_TOPIC_PREFIX_ENV];
    await sns.close();
  });
  afterEach(() => {
    sns.failCalls(undefined);
    sns.hangCalls(false);
    process.env[ALERTS_SNS_TOPIC_PREFIX_ENV] = prefix;
  });
  return sns;
}
