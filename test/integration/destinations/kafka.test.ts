import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { kafka } from '../../support/destination-types';
import type { Message } from '../../../shared/destinations/types';
import { KAFKA_ERRORS, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker';
import { selfSignedCertificate } from '../../support/tls-certificate';
import { allowLocalAddresses, chunkContext, trackOf } from '../../support/server-batch';

/**
 * Kafka delivery with kafkajs against a broker speaking the Kafka wire protocol on a local port
 * (test/support/kafka-broker.ts: no Kafka can run here), three partitions per topic.
 */
let broker: KafkaBroker;
allowLocalAddresses();
afterEach(() => broker?.stop());

async function waitFor(condition: () => boolean, ms = 2_000): Promise<void> {
  for (const end = Date.now() + ms; !condition(); await sleep(20)) {
    if (Date.now() > end) throw new Error('condition not met in time');
  }
}
const configOf = (overrides: Record<string, unknown> = {}) =>
  kafka.config.parse({ hostname: '127.0.0.1', port: broker.port, topic: 'weir.events', ...overrides });
const deliver = (messages: Message[], config = configOf()) => kafka.serverBatch!.deliver(messages, config, chunkContext());

test('a chunk goes to the topic keyed by userId (else anonymousId), the event JSON as value, messageId as a header', async () => {
  broker = await startKafkaBroker();
  const anonymous = { type: 'page', messageId: 'm-anon', anonymousId: 'anon-7', properties: { path: '/' } };
  const nobody = { type: 'track', event: 'x' };
  const events = [trackOf(1, 'ada'), anonymous, nobody];
  const result = await deliver(events);

  expect(result).toMatchObject({ status: 200, retryable: false, response: { topic: 'weir.events' } });
  expect(result.verdicts).toEqual([{ kind: 'delivered' }, { kind: 'delivered' }, { kind: 'delivered' }]);
  const stored = [...broker.records].sort((a, b) => String(a.key).localeCompare(String(b.key)));
  expect(stored.map(({ topic, key, value, headers }) => ({ topic, key, value: JSON.parse(value!), headers }))).toEqual([
    { topic: 'weir.events', key: 'ada', value: events[0], headers: { messageId: 'm-1' } },
    { topic: 'weir.events', key: 'anon-7', value: anonymous, headers: { messageId: 'm-anon' } },
    { topic: 'weir.events', key: null, value: nobody, headers: {} },
  ]);
  // The producer is disconnected after the chunk: the broker sees its connections close.
  await waitFor(() => broker.connections() === 0);
});

test("each user's events land on one partition in the order of the chunk", async () => {
  broker = await startKafkaBroker();
  const users = ['ada', 'bob', 'cy', 'dee', 'eve', 'fay'];
  const events = [...Array(30).keys()].map((n) => trackOf(n, users[n % users.length]));
  await deliver(events.slice(0, 18));
  await deliver(events.slice(18));

  expect(broker.records).toHaveLength(30);
  const partitionsUsed = new Set(broker.records.map((r) => r.partition));
  expect(partitionsUsed.size).toBeGreaterThan(1);
  for (const user of users) {
    const own = broker.records.filter((r) => r.key === user);
    expect(new Set(own.map((r) => r.partition)).size).toBe(1);
    const sent = events.filter((e) => e.userId === user).map((e) => e.messageId);
    expect([...own].sort((a, b) => a.offset - b.offset).map((r) => r.headers.messageId)).toEqual(sent);
  }
});

test('SASL PLAIN: the right credentials deliver; a wrong password refuses the chunk and stores nothing', async () => {
  broker = await startKafkaBroker({ sasl: { username: 'weir', password: 's3cret' } });
  const sasl = { useSASL: true, saslType: 'plain', username: 'weir', password: 's3cret' };
  expect((await deliver([trackOf(1)], configOf(sasl))).status).toBe(200);
  const wrong = await deliver([trackOf(2)], configOf({ ...sasl, password: 'nope' }));
  expect(wrong).toMatchObject({ status: 400, retryable: false });
  expect(wrong.verdicts).toEqual([{ kind: 'refused', error: expect.stringMatching(/SASL PLAIN authentication failed/) }]);
  expect(broker.records.map((r) => r.key)).toEqual(['u1']);
});

test.each([
  ['sha256', 'SCRAM-SHA-256'],
  ['sha512', 'SCRAM-SHA-512'],
])('saslType %s asks the broker for %s; a broker without it refuses the chunk', async (saslType, mechanism) => {
  broker = await startKafkaBroker({ sasl: { username: 'weir', password: 's3cret' } });
  const result = await deliver([trackOf(1)], configOf({ useSASL: true, saslType, username: 'weir', password: 's3cret' }));
  expect(broker.mechanisms).toEqual([mechanism]);
  expect(result).toMatchObject({ status: 400, retryable: false });
  expect(broker.records).toHaveLength(0);
});

test('TLS: the broker certificate is checked against the configured CA; an unknown one is not sent to (retryable, as for HTTP destinations)', async () => {
  const certificate = selfSignedCertificate();
  broker = await startKafkaBroker({ tls: certificate });
  const trusted = await deliver([trackOf(1)], configOf({ sslEnabled: true, caCertificate: certificate.cert }));
  expect(trusted).toMatchObject({ status: 200 });
  expect(broker.records.map((r) => r.key)).toEqual(['u1']);

  const untrusted = await deliver([trackOf(2)], configOf({ sslEnabled: true }));
  expect(untrusted).toMatchObject({ status: 503, retryable: true, error: expect.stringMatching(/self[- ]signed certificate/) });
  expect(broker.records).toHaveLength(1);
});

test.each([
  ['NOT_ENOUGH_REPLICAS', KAFKA_ERRORS.NOT_ENOUGH_REPLICAS, 'retryable', 503],
  ['TOPIC_AUTHORIZATION_FAILED', KAFKA_ERRORS.TOPIC_AUTHORIZATION_FAILED, 'refused', 400],
])("a produce answered %s (%i) makes the chunk's events %s", async (_name, code, kind, status) => {
  broker = await startKafkaBroker();
  broker.failProduce('weir.events', code);
  const result = await deliver([trackOf(1), trackOf(2)]);
  expect(result).toMatchObject({ status, retryable: kind === 'retryable' });
  expect(result.verdicts!.map((v) => v.kind)).toEqual([kind, kind]);
  expect(broker.records).toHaveLength(0);
});

test('an event over 1 MB is refused alone; the rest of the chunk is produced', async () => {
  broker = await startKafkaBroker();
  const huge = trackOf(2, 'u2', { blob: 'x'.repeat(1_000_001) });
  const result = await deliver([trackOf(1), huge, trackOf(3)]);
  expect(result.verdicts).toEqual([
    { kind: 'delivered' },
    { kind: 'refused', error: expect.stringMatching(/larger than 1000000 bytes/) },
    { kind: 'delivered' },
  ]);
  expect(broker.records.map((r) => r.key).sort()).toEqual(['u1', 'u3']);
});

describe('the outbound address guard', () => {
  test('a broker address that is not public nor allow-listed is refused before connecting', async () => {
    broker = await startKafkaBroker();
    process.env.WEIR_OUTBOUND_ALLOWLIST = '';
    const result = await deliver([trackOf(1)]);
    expect(result).toMatchObject({ status: 403, retryable: false, error: expect.stringMatching(/non-public address: 127.0.0.1/) });
    expect(broker.requests).toHaveLength(0);
  });

  test('a broker the cluster metadata names at a private address is refused as well', async () => {
    broker = await startKafkaBroker({ advertisedHost: '10.11.12.13' });
    const result = await deliver([trackOf(1)]);
    expect(result).toMatchObject({ status: 403, retryable: false, error: expect.stringMatching(/non-public address: 10.11.12.13/) });
    expect(broker.requests.map((r) => r.apiKey)).not.toContain(0);
  });
});

describe('no answer', () => {
  let silent: Server;
  const held = new Set<Socket>();
  afterEach(async () => {
    for (const socket of held) socket.destroy();
    delete process.env.WEIR_DESTINATION_TIMEOUT_MS;
    await new Promise((resolve) => silent?.close(resolve));
  });

  test('nothing listening, or a broker that never answers within the time-out, leaves the chunk retryable', async () => {
    broker = await startKafkaBroker();
    const port = broker.port;
    await broker.stop();
    expect(await deliver([trackOf(1)], configOf({ port }))).toMatchObject({ status: 503, retryable: true });

    silent = createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    process.env.WEIR_DESTINATION_TIMEOUT_MS = '400';
    const started = Date.now();
    const result = await deliver([trackOf(1)], configOf({ port: (silent.address() as { port: number }).port }));
    expect(result).toMatchObject({ status: 503, retryable: true, verdicts: [{ kind: 'retryable' }] });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
