import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { servicesOver, type Services } from '../../shared/services';
import { startDestinationServer, type DestinationServer } from './destination-server';
import { bearer, call, startTestRuntime, type TestRuntime } from './runtime';
import { waitFor } from './wait';

/**
 * The setting of the regulation suites: a runtime, a local server playing the vendors' deletion APIs, the
 * services over the runtime's table, and helpers to make a workspace and wait for a regulation's jobs.
 */
export function regulationSuite() {
  const state = {} as { rt: TestRuntime; vendor: DestinationServer; regulations: Services };
  process.env.WEIR_DELETION_RETRY_BASE_MS = '20';
  beforeAll(async () => {
    process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
    state.rt = await startTestRuntime({ schedulerIntervalMs: 0 });
    state.vendor = await startDestinationServer();
    state.regulations = servicesOver(state.rt.store);
  });
  afterAll(async () => {
    delete process.env[OUTBOUND_ALLOWLIST_ENV];
    await state.vendor.close();
    await state.rt.stop();
  });
  beforeEach(() => (state.vendor.received.length = 0));

  async function workspace() {
    const ws: WorkspaceCredentials = await state.rt.newWorkspace();
    const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      call(state.rt.controlUrl, method, path, { auth: bearer(ws.token), body, headers });
    return {
      ws,
      api,
      create: (body: unknown, headers: Record<string, string> = { Accept: 'application/json' }) => api('POST', '/v2/regulations', body, headers),
      async source() {
        return (await api('POST', '/v2/sources', { name: 'Site' })).body.source.id as string;
      },
      async destination(type: string, config: Record<string, unknown>) {
        const created = await api('POST', '/v2/destinations', { name: type, type, config });
        expect(created.status).toBe(201);
        return created.body.destination.id as string;
      },
      /** An Amplitude destination whose API is the local vendor server. */
      amplitude() {
        return this.destination('AM', { apiKey: 'key-1', apiSecret: 'secret-1', baseUrl: state.vendor.url });
      },
      async all() {
        const ids: string[] = [];
        let path: string | undefined = '/v2/regulations?per_page=100';
        while (path) {
          const page = await api('GET', path);
          expect(page.status).toBe(200);
          ids.push(...page.body.data.map((r: { id: string }) => r.id));
          path = page.body.paging.next;
        }
        return ids;
      },
    };
  }

  /** Feeds the stream to the processor and runs the scheduler until the regulation's jobs are all final. */
  async function settle(w: Awaited<ReturnType<typeof workspace>>, id: string) {
    const read = async () => {
      await state.rt.poller.drain();
      await state.rt.scheduler.runNow();
      return (await w.api('GET', `/v2/regulations/${id}`)).body;
    };
    return waitFor(`regulation ${id} to end`, read, (detail) => !['pending', 'running'].includes(detail.status), { everyMs: 30 });
  }

  return { state, workspace, settle };
}
