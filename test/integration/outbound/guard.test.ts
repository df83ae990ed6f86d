import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { isPublicAddress } from '../../../shared/outbound/address-policy';
import { isAddressAllowlisted, isHostAllowlisted, parseAllowlist } from '../../../shared/outbound/allowlist';
import { guardedFetch, OutboundError, RESOLVES_TO_NON_PUBLIC } from '../../../shared/outbound/guard';

let server: http.Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(201, { 'x-method': req.method ?? '' }).end(body));
      return;
    }
    if (req.url === '/gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('compressed text'));
    if (req.url === '/big') return void res.writeHead(200).end('z'.repeat(10_000));
    if (req.url === '/slow') {
      const timer = setTimeout(() => res.writeHead(200).end('late'), 2000);
      req.on('close', () => clearTimeout(timer));
      return;
    }
    if (req.url === '/to-json') return void res.writeHead(302, { location: '/json' }).end();
    if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const options = { timeoutMs: 1000, maxResponseBytes: 1024 * 1024 };
const local = { ...options, allowlist: '127.0.0.1' };

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected the request to be refused');
}

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.100.100.200',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '192.0.0.192',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    '2001:db8::1',
    'not an ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('allow-list', () => {
  const list = parseAllowlist(' 127.0.0.1, ::1 ,Localhost,10.1.0.0/16, ::ffff:192.168.0.0/112 ,');

  it('matches hosts case-insensitively, addresses exactly and CIDRs by range', () => {
    expect(isHostAllowlisted(list, 'LOCALHOST')).toBe(true);
    expect(isHostAllowlisted(list, 'example.com')).toBe(false);
    expect(isAddressAllowlisted(list, '127.0.0.1')).toBe(true);
    expect(isAddressAllowlisted(list, '127.0.0.2')).toBe(false);
    expect(isAddressAllowlisted(list, '::1')).toBe(true);
    expect(isAddressAllowlisted(list, '10.1.200.3')).toBe(true);
    expect(isAddressAllowlisted(list, '10.2.0.1')).toBe(false);
    expect(isAddressAllowlisted(list, '192.168.4.4')).toBe(true);
    expect(isAddressAllowlisted(list, '::ffff:127.0.0.1')).toBe(true);
  });

  it('is empty when unset', () => {
    const empty = parseAllowlist(undefined);
    expect(empty.hosts.size + empty.ranges.length).toBe(0);
  });
});

describe('guardedFetch refusals happen before any connection', () => {
  beforeEach(() => {
    hits = 0;
  });
  afterEach(() => {
    expect(hits).toBe(0);
  });

  it.each([
    [undefined, 'fetch url is required'],
    ['', 'fetch url is required'],
    ['ftp://example.com/file', 'invalid protocol, only http and https are supported'],
    ['file:///etc/passwd', 'invalid protocol, only http and https are supported'],
    ['http://exa mple.com:99999/', 'invalid url, Invalid URL'],
    ['http://127.0.0.1/', 'blocked request to non-public address: 127.0.0.1'],
    ['http://10.0.0.1/', 'blocked request to non-public address: 10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', 'blocked request to non-public address: 169.254.169.254'],
    ['http://[::1]:8080/', 'blocked request to non-public address: ::1'],
    ['http://[::ffff:127.0.0.1]/', 'blocked request to non-public address: ::ffff:7f00:1'],
    ['http://0x7f.1/', 'blocked request to non-public address: 127.0.0.1'],
    ['http://2130706433/', 'blocked request to non-public address: 127.0.0.1'],
  ])('%s is refused with "%s"', async (url, message) => {
    const err = await refusal(guardedFetch(url, {}, options));
    expect(err.message).toBe(message);
  });

  it('a name that resolves to a loopback address is refused, naming the rule and the name but not the address', async () => {
    const err = await refusal(guardedFetch('http://localhost:1/x', {}, options));
    expect(err.message).toBe(`request to http://localhost:1/x failed, reason: localhost ${RESOLVES_TO_NON_PUBLIC}`);
    expect(err.code).toBe('blocked_resolution');
  });

  it('a name that does not resolve is refused', async () => {
    const err = await refusal(guardedFetch('http://no-such-host.invalid/', {}, options));
    expect(err.message).toBe('request to http://no-such-host.invalid/ failed, reason: unable to resolve IP address for no-such-host.invalid');
  });

  it('the local test server is refused without the allow-list', async () => {
    const err = await refusal(guardedFetch(`${base}/json`, {}, { ...options, allowlist: '' }));
    expect(err.message).toBe('blocked request to non-public address: 127.0.0.1');
  });

  it('the allow-list is read from WEIR_OUTBOUND_ALLOWLIST when not given', async () => {
    const saved = process.env.WEIR_OUTBOUND_ALLOWLIST;
    delete process.env.WEIR_OUTBOUND_ALLOWLIST;
    try {
      const err = await refusal(guardedFetch(`${base}/json`, {}, options));
      expect(err.code).toBe('blocked_address');
    } finally {
      if (saved !== undefined) process.env.WEIR_OUTBOUND_ALLOWLIST = saved;
    }
  });
});

describe('guardedFetch to an allow-listed server', () => {
  it('returns url, status, headers and body text', async () => {
    const res = await guardedFetch(`${base}/json`, {}, local);
    expect(res).toMatchObject({ url: `${base}/json`, status: 200, bodyText: '{"ok":true}' });
    expect(res.headers['content-type']).toBe('application/json');
  });

  it('sends method, headers and body', async () => {
    const res = await guardedFetch(`${base}/echo`, { method: 'post', headers: { 'x-a': '1' }, body: 'payload' }, local);
    expect(res).toMatchObject({ status: 201, bodyText: 'payload' });
    expect(res.headers['x-method']).toBe('POST');
  });

  it('a non-2xx status is a response, not an error', async () => {
    const res = await guardedFetch(`${base}/nope`, {}, local);
    expect(res).toMatchObject({ status: 404, bodyText: 'missing' });
  });

  it('decompresses gzip bodies', async () => {
    expect((await guardedFetch(`${base}/gzip`, {}, local)).bodyText).toBe('compressed text');
  });

  it('the allow-list may name the host instead of the address', async () => {
    const url = base.replace('127.0.0.1', 'localhost');
    const res = await guardedFetch(`${url}/json`, {}, { ...options, allowlist: 'localhost' });
    expect(res.status).toBe(200);
  });

  it('a CIDR entry lets the server through', async () => {
    expect((await guardedFetch(`${base}/json`, {}, { ...options, allowlist: '127.0.0.0/8' })).status).toBe(200);
  });

  it('follows redirects and re-vets every hop', async () => {
    const res = await guardedFetch(`${base}/to-json`, {}, local);
    expect(res).toMatchObject({ url: `${base}/json`, status: 200 });
    const err = await refusal(guardedFetch(`${base}/to-metadata`, {}, local));
    expect(err.message).toBe('blocked request to non-public address: 169.254.169.254');
  });

  it('stops a slow response at the timeout', async () => {
    const started = performance.now();
    const err = await refusal(guardedFetch(`${base}/slow`, {}, { ...local, timeoutMs: 150 }));
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`request to ${base}/slow failed, reason: network timeout at: ${base}/slow`);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a body over the size limit', async () => {
    const err = await refusal(guardedFetch(`${base}/big`, {}, { ...local, maxResponseBytes: 1000 }));
    expect(err.code).toBe('too_large');
  });

  it('an aborted caller signal ends the request', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await refusal(guardedFetch(`${base}/slow`, {}, { ...local, signal: controller.signal }));
    expect(err.code).toBe('timeout');
  });
});
