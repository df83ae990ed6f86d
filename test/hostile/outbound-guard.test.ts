import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { putRecordBatch } from '../../shared/destinations/firehose/client';
import { sendRequest } from '../../shared/destinations/http-client';
import { withProducer } from '../../shared/destinations/kafka/connection';
import { endPostgresPools, ONE_OFF, withPostgres } from '../../shared/destinations/postgres/connection';
import { withRedis } from '../../shared/destinations/redis/connection';
import { restRequest } from '../../shared/destinations/request';
import { putObject } from '../../shared/destinations/s3/client';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { guardedFetch, OutboundError, RESOLVES_TO_NON_PUBLIC } from '../../shared/outbound/guard';
import { performGuestFetch } from '../../shared/sandbox/guest-fetch';

/**
 * The outbound guard as a sender who aims a destination or user code at Weir's own network sees it: a refusal
 * names the rule and the host given, never what the host resolved to; a redirect to another origin carries
 * none of the credentials meant for the first.
 */

/** `localhost` resolves to 127.0.0.1 (and ::1): neither may appear in what the sender is told. */
const RESOLVED = /127\.0\.0\.1|::1/;
const refusalOf = (url: string) => `request to ${url} failed, reason: localhost ${RESOLVES_TO_NON_PUBLIC}`;

const saved = process.env[OUTBOUND_ALLOWLIST_ENV];
afterAll(() => endPostgresPools());
afterEach(() => {
  if (saved === undefined) delete process.env[OUTBOUND_ALLOWLIST_ENV];
  else process.env[OUTBOUND_ALLOWLIST_ENV] = saved;
});

describe('a host name that resolves to a loopback address', () => {
  beforeEach(() => delete process.env[OUTBOUND_ALLOWLIST_ENV]);

  it('is refused by the guard with the rule and the name, not the address', async () => {
    const error = await guardedFetch('http://localhost:1/x', {}, { timeoutMs: 1000, maxResponseBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).code).toBe('blocked_resolution');
    expect((error as OutboundError).message).toBe(refusalOf('http://localhost:1/x'));
    expect((error as OutboundError).message).not.toMatch(RESOLVED);
  });

  it('is refused with that text alone by every client that goes through the guard', async () => {
    const noWork = async () => undefined;
    const answers: [string, unknown][] = [
      [
        'webhook and HTTP destinations (Google included)',
        (await sendRequest(restRequest({ method: 'POST', endpoint: 'http://localhost:1/hook', json: { a: 1 } }))).error,
      ],
      ['user code fetch', ((await performGuestFetch('http://localhost:1/x', {}, 1000, new AbortController().signal, '')) as { message: string }).message],
      [
        'S3',
        (await putObject({ bucket: 'b', region: 'us-east-1', endPoint: 'http://localhost:1', accessKeyId: 'k', secretAccessKey: 's' }, 'o', Buffer.from('x')))
          .error,
      ],
      [
        'Firehose',
        await putRecordBatch({ deliveryStreamName: 's', region: 'us-east-1', endPoint: 'http://localhost:1', accessKeyId: 'k', secretAccessKey: 's' }, [
          Buffer.from('x'),
        ]).then((outcome) => (outcome.ok ? undefined : outcome.result.error)),
      ],
      ['Kafka', await withProducer({ hostname: 'localhost', port: 1 }, noWork).then((outcome) => (outcome.ok ? undefined : outcome.error))],
      [
        'PostgreSQL',
        await withPostgres(ONE_OFF, { host: 'localhost', port: 1, database: 'd', user: 'u', sslMode: 'disable' }, noWork).then((outcome) =>
          outcome.ok ? undefined : outcome.error,
        ),
      ],
      ['Redis', await withRedis({ address: 'localhost:1' }, noWork).then((outcome) => (outcome.ok ? undefined : outcome.error))],
    ];
    // Each says the guard's refusal and nothing more (the URL the guard read: the configured host and port).
    for (const [client, error] of answers) {
      const url =
        client === 'webhook and HTTP destinations (Google included)'
          ? 'http://localhost:1/hook'
          : client === 'user code fetch'
            ? 'http://localhost:1/x'
            : 'http://localhost:1/';
      expect([client, error]).toEqual([client, refusalOf(url)]);
      expect([client, error]).toEqual([client, expect.not.stringMatching(RESOLVED)]);
    }
  });

  it('allow-listed by name, fails to connect with a text that names the host and not the address', async () => {
    process.env[OUTBOUND_ALLOWLIST_ENV] = 'localhost';
    const noWork = async () => undefined;
    const web = await sendRequest(restRequest({ method: 'GET', endpoint: 'http://localhost:1/x' }));
    const redis = await withRedis({ address: 'localhost:1' }, noWork);
    const postgres = await withPostgres(ONE_OFF, { host: 'localhost', port: 1, database: 'd', user: 'u', sslMode: 'disable' }, noWork);
    expect(web).toMatchObject({ status: 502, error: expect.stringMatching(/ECONNREFUSED localhost:1/) });
    for (const error of [web.error, !redis.ok && redis.error, !postgres.ok && postgres.error]) {
      expect(error).toEqual(expect.stringContaining('localhost'));
      expect(error).toEqual(expect.not.stringMatching(RESOLVED));
    }
  });
});

interface Hop {
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A local server that records what reached it and answers `answer(path)`. */
async function server(answer: (path: string) => { status: number; location?: string }) {
  const hops: Hop[] = [];
  const s = http.createServer((req, res) => {
    hops.push({ url: req.url ?? '', headers: req.headers });
    req.resume().on('end', () => {
      const { status, location } = answer(req.url ?? '');
      res.writeHead(status, location ? { location } : { 'content-type': 'application/json' }).end(location ? '' : '{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  return { hops, port, url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve))) };
}

describe('a redirect', () => {
  let elsewhere: Awaited<ReturnType<typeof server>>;
  let first: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    elsewhere = await server(() => ({ status: 200 }));
    first = await server((path) => {
      if (path === '/other-port') return { status: 307, location: `${elsewhere.url}/landed` };
      if (path === '/other-host') return { status: 302, location: `http://localhost:${first.port}/landed` };
      if (path === '/same-origin') return { status: 307, location: '/landed' };
      return { status: 200 };
    });
  });
  afterAll(async () => {
    await Promise.all([first.close(), elsewhere.close()]);
  });
  beforeEach(() => {
    process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1,localhost';
    first.hops.length = 0;
    elsewhere.hops.length = 0;
  });

  const CREDENTIALS = {
    Authorization: 'Bearer destination-secret',
    Cookie: 'session=abc',
    'Proxy-Authorization': 'Basic cHJveHk=',
    'X-Api-Key': 'configured-key',
  };
  const credentialHeaders = (hop: Hop | undefined) =>
    Object.fromEntries(
      ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'].filter((h) => hop?.headers[h] !== undefined).map((h) => [h, hop?.headers[h]]),
    );

  it('to another port (307) reaches it without Authorization, Cookie, Proxy-Authorization or configured headers', async () => {
    const answer = await sendRequest(restRequest({ method: 'POST', endpoint: `${first.url}/other-port`, headers: CREDENTIALS, json: { a: 1 } }));
    expect(answer.status).toBe(200);
    expect(credentialHeaders(first.hops[0])).toEqual({
      authorization: 'Bearer destination-secret',
      cookie: 'session=abc',
      'proxy-authorization': 'Basic cHJveHk=',
      'x-api-key': 'configured-key',
    });
    expect(elsewhere.hops).toHaveLength(1);
    expect(elsewhere.hops[0]).toMatchObject({ url: '/landed', headers: { 'user-agent': 'Weir', 'content-type': 'application/json' } });
    expect(credentialHeaders(elsewhere.hops[0])).toEqual({});
  });

  it('to another host on the same port (302) drops them as well, for user code fetch too', async () => {
    const result = await performGuestFetch(`${first.url}/other-host`, { headers: CREDENTIALS }, 1000, new AbortController().signal, '127.0.0.1,localhost');
    expect(result).toMatchObject({ ok: true, status: 200, url: `http://localhost:${first.port}/landed` });
    expect(first.hops.map((hop) => hop.url)).toEqual(['/other-host', '/landed']);
    expect(credentialHeaders(first.hops[0])).toMatchObject({ authorization: 'Bearer destination-secret' });
    expect(credentialHeaders(first.hops[1])).toEqual({});
  });

  it('to the same origin keeps them', async () => {
    const answer = await sendRequest(restRequest({ method: 'POST', endpoint: `${first.url}/same-origin`, headers: CREDENTIALS, json: { a: 1 } }));
    expect(answer.status).toBe(200);
    expect(first.hops.map((hop) => hop.url)).toEqual(['/same-origin', '/landed']);
    expect(credentialHeaders(first.hops[1])).toEqual({
      authorization: 'Bearer destination-secret',
      cookie: 'session=abc',
      'proxy-authorization': 'Basic cHJveHk=',
      'x-api-key': 'configured-key',
    });
  });
});
