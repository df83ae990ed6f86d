import type { RuntimeOptions } from '../../infra/local/runtime';
import { DESTINATION_TIMEOUT_ENV } from '../../shared/destinations/http-client';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { shutdownSandbox } from '../../shared/sandbox';
import { startDestinationServer, type DestinationServer } from './destination-server';
import { startTestRuntime, type TestRuntime } from './runtime';

export interface DeliveryRig {
  rt: TestRuntime;
  /** The local server the test's destinations send to; its requests are cleared before each test. */
  server: DestinationServer;
}

export interface DeliveryRigOptions {
  /** Each destination request's time-out (default 1,000 ms). */
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
    process.env[DESTINATION_TIMEOUT_ENV] = String(options.destinationTimeoutMs ?? 1000);
    rig.rt = await startTestRuntime(options.runtime ?? { schedulerIntervalMs: 60_000 });
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
