import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryRig } from './delivery-rig';
import type { ReceivedRequest } from './destination-server';
import { basic, bearer, call } from './runtime';

/**
 * A fresh workspace whose source is connected to one destination of `type` (its config aimed at the rig's
 * server, `credentials` stored first): a sender of one request of events, a delivery round, the destination's
 * outcomes, delivery counts and failures, and the test interface. For the vendor suites of
 * test/integration/destinations.
 */
export async function vendorPipeline(rig: DeliveryRig, type: string, config: Record<string, unknown>, credentials: Record<string, string> = {}) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  for (const [key, value] of Object.entries(credentials)) {
    expect((await call(rig.rt.controlUrl, 'PUT', `/credentials/${key}`, { auth: basic(ws.email, ws.token), body: { value } })).status).toBe(200);
  }
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const created = await api('POST', '/v2/destinations', { name: type, type, config });
  expect(created.status).toBe(201);
  const destination = created.body.destination as { id: string };
  expect((await api('POST', '/v2/connections', { sourceId: source.id, destinationId: destination.id })).status).toBe(201);
  // From an hour ago to an hour ahead: the window of the delivery and failure reports.
  const window = () => `from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 3600_000).toISOString()}`;
  const testDestination = (body: unknown) =>
    call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${destination.id}`, { auth: basic(ws.email, ws.token), body });
  return {
    sourceId: source.id,
    destinationId: destination.id,
    send: async (batch: Record<string, unknown>[]) =>
      expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200),
    /** The stream's records handed to delivery, then `rounds` scheduler rounds `gapMs` apart (retries of parked events). */
    flow: async (rounds = 0, gapMs = 40) => {
      await rig.rt.poller.drain();
      for (let i = 0; i < rounds; i++) {
        await sleep(gapMs);
        await rig.rt.scheduler.runNow();
      }
    },
    outcomes: async () => (await api('GET', `/v2/destinations/${destination.id}/outcomes`)).body as Record<string, unknown>,
    delivery: async () => (await api('GET', `/v2/destinations/${destination.id}/delivery?${window()}`)).body,
    failures: async () =>
      (await api('GET', `/v2/destinations/${destination.id}/failures?${window()}`)).body as {
        failures: { messageId: string; reason: string; error: string }[];
      },
    /** The test interface's answer for `body` ({message, stage}), as it came. */
    testDestination,
    /** The test interface's answer for `message`, transformed and sent. */
    test: async (message: Record<string, unknown>) => {
      const answer = await testDestination({ message, stage: { dest_transform: true, send_to_destination: true } });
      expect(answer.status).toBe(200);
      return answer.body as { destination: string; data: Record<string, unknown>[] };
    },
  };
}

/** Answers 204 with no body, as several vendors answer an accepted event. */
export const noContent = (_req: ReceivedRequest, res: ServerResponse) => void res.writeHead(204).end();
