import { setTimeout as sleep } from 'node:timers/promises';
import { runTransformation } from '../../shared/sandbox';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, bearer, call } from '../support/runtime';
import { waitFor } from '../support/wait';

/** Weir's metrics reach CloudWatch as embedded-metric documents (Powertools): delivery, sandbox and deletion outcomes. */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELETION_RETRY_BASE_MS = '20';
const written: string[] = [];
let restore: () => void;
const rig = deliveryRig();

// What the process writes is read here, not shown: the documents would fill the test output.
beforeAll(() => {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  restore = () => (process.stdout.write = write);
});
afterAll(() => restore());

const documents = () =>
  written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map(
      (line) =>
        JSON.parse(line) as Record<string, unknown> & {
          _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
        },
    );

test('a failed delivery emits DeliveryRetried for its destination type, and its later success DeliveryDelivered', async () => {
  const { source, connect } = await sourcePipeline(rig);
  await connect(webhookAt(rig, '/m', 'd'));
  let calls = 0;
  rig.server.on('/m', (req, res) => json(++calls === 1 ? 503 : 200, {})(req, res));

  await call(rig.rt.dataUrl, 'POST', '/v1/track', { auth: basic(source.writeKey, ''), body: { userId: 'u', event: 'e' } });
  await rig.rt.poller.drain();
  const retried = documents().filter((d) => d.DeliveryRetried === 1);
  // Once with the service alone (what alarms read), once per destination type.
  expect(retried.map((d) => d._aws.CloudWatchMetrics[0]!.Dimensions)).toEqual([[['service']], [['service', 'destinationType']]]);
  expect(retried[1]).toMatchObject({ destinationType: 'WEBHOOK', service: 'weir' });
  expect(retried[1]!._aws.CloudWatchMetrics[0]).toMatchObject({
    Namespace: 'Weir',
    Metrics: [expect.objectContaining({ Name: 'DeliveryRetried' })],
  });
  expect(documents().some((d) => d.EventsIngested === 1)).toBe(true);

  await sleep(50);
  await rig.rt.scheduler.runNow();
  expect(documents().some((d) => d.DeliveryDelivered === 1 && d.destinationType === 'WEBHOOK')).toBe(true);
});

test('each sandbox invocation emits SandboxInvocations with its outcome: ok, or the kind of failure', async () => {
  await runTransformation({
    code: 'export function transformEvent(e) { return e; }',
    name: 'ok',
    libraries: [],
    events: [{ message: { type: 'track' }, metadata: {} }],
  });
  await expect(runTransformation({ code: 'export function transformEvent(e) { return e', name: 'broken', libraries: [], events: [] })).rejects.toThrow();
  const outcomes = documents()
    .filter((d) => d.SandboxInvocations === 1 && d.outcome !== undefined)
    .map((d) => d.outcome);
  expect(outcomes).toEqual(expect.arrayContaining(['ok', 'compile']));
});

test('each user-deletion attempt emits DeletionAttempts with its outcome', async () => {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  rig.server.on('/vendor', json(200, {}));
  const am = (
    await api('POST', '/v2/destinations', {
      name: 'am',
      type: 'AM',
      config: { apiKey: 'k', apiSecret: 's', baseUrl: `${rig.server.url}/vendor` },
    })
  ).body.destination;
  const created = await api('POST', '/v2/regulations', {
    regulationType: 'suppress_with_delete',
    destinationIds: [am.id],
    users: [{ userId: 'gone' }],
  });
  expect(created.status).toBe(201);
  const deletionLogged = async () => {
    await rig.rt.poller.drain();
    await rig.rt.scheduler.runNow();
    return documents().some((d) => d.DeletionAttempts === 1 && d.outcome === 'completed');
  };
  await waitFor('the completed deletion in the metrics', deletionLogged, Boolean, { timeoutMs: 10_000, everyMs: 0 });
});
