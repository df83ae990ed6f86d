import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { deliveryRig, type DeliveryRig } from './delivery-rig';
import { basic, bearer, call } from './runtime';

/** The event the test interface's suites send. */
export const TRACK = {
  type: 'track',
  event: 'Order Completed',
  messageId: 'msg-1',
  anonymousId: 'anon-1',
  userId: 'user-1',
  properties: { revenue: 42, items: [{ sku: 'a' }] },
  context: { traits: { email: 'ada@example.com' } },
};

/** The request the webhook's transform makes of an event of anon-1, as the test interface reports it. */
export const webhookRequest = (endpoint: string, body: Record<string, unknown>) => ({
  version: '1',
  type: 'REST',
  method: 'POST',
  endpoint,
  headers: { 'content-type': 'application/json' },
  params: {},
  body: { JSON: body, JSON_ARRAY: {}, XML: {}, FORM: {} },
  files: {},
  userId: 'anon-1',
});

/**
 * The setting of a test-interface suite (SPEC §4.C and §7 over HTTP): the delivery rig with each send bounded
 * to 800 ms, its local server playing the destination. A test may narrow the allowlist; each begins with it
 * open to the local server again. Call it at the top of a test file.
 */
export function testInterfaceRig() {
  const rig = deliveryRig({ destinationTimeoutMs: 800, runtime: {} });
  beforeEach(() => (process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1'));
  return { rig, workspace: () => testInterfaceWorkspace(rig) };
}

/** A workspace with helpers for the catalog (Bearer) and the test interface (Basic email:token). */
async function testInterfaceWorkspace(rig: DeliveryRig) {
  const ws: WorkspaceCredentials = await rig.rt.newWorkspace();
  const auth = basic(ws.email, ws.token);
  const catalog = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  return {
    ws,
    auth,
    catalog,
    async destination(config: Record<string, unknown> = { webhookUrl: `${rig.server.url}/hook` }, extra: Record<string, unknown> = {}) {
      const created = await catalog('POST', '/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config, ...extra });
      expect(created.status).toBe(201);
      return created.body.destination as { id: string; name: string };
    },
    async source(enabled = true) {
      return (await catalog('POST', '/v2/sources', { name: 'Site', enabled })).body.source as { id: string };
    },
    async connect(sourceId: string, destinationId: string) {
      expect((await catalog('POST', '/v2/connections', { sourceId, destinationId })).status).toBe(201);
    },
    async transformation(code: string, destinationIds: string[]) {
      const created = await call(rig.rt.controlUrl, 'POST', '/transformations?publish=true', {
        auth,
        body: { name: `T${Math.random()}`, code, destinationIds },
      });
      expect(created.status).toBe(200);
      return created.body as { id: string };
    },
    testDestination: (id: string, body: unknown, query = '', withAuth = auth) =>
      call(rig.rt.controlUrl, 'POST', `/v0/testDestination/${id}${query}`, { auth: withAuth, body }),
    testSource: (id: string, body: unknown, query = '') => call(rig.rt.controlUrl, 'POST', `/v0/testSource/${id}${query}`, { auth, body }),
  };
}
