import { clientIp, TRUSTED_PROXIES_ENV } from '../../shared/http/client-ip';

/** The client's address behind trusted proxies, with Node's own address list (net.BlockList). */
const from = (peer: string, forwarded?: string) => ({
  headers: forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded },
  requestContext: { identity: { sourceIp: peer } },
});
const env = (trusted: string) => ({ [TRUSTED_PROXIES_ENV]: trusted });

test("believes X-Forwarded-For's first hop only from a trusted proxy, by address or CIDR, IPv4 or IPv6", () => {
  expect(clientIp(from('10.1.2.3', '203.0.113.7, 10.1.2.3') as never, env('10.0.0.0/8'))).toBe('203.0.113.7');
  expect(clientIp(from('192.168.1.1', '203.0.113.7') as never, env('10.0.0.0/8, 192.168.1.1'))).toBe('203.0.113.7');
  expect(clientIp(from('2001:db8::5', '198.51.100.4') as never, env('2001:db8::/32'))).toBe('198.51.100.4');
  expect(clientIp(from('172.16.0.9', '203.0.113.7') as never, env('10.0.0.0/8'))).toBe('172.16.0.9');
  expect(clientIp(from('10.1.2.3', '203.0.113.7') as never, {})).toBe('10.1.2.3');
});

test('gives addresses in their plain form: IPv4 mapped into IPv6 as IPv4, IPv6 compressed in lower case', () => {
  expect(clientIp(from('::ffff:10.1.2.3', '2001:DB8:0:0:0:0:0:1') as never, env('10.0.0.0/8'))).toBe('2001:db8::1');
  expect(clientIp(from('::FFFF:203.0.113.9') as never, {})).toBe('203.0.113.9');
  // A first hop that is not an address leaves the proxy's own.
  expect(clientIp(from('10.1.2.3', 'unknown') as never, env('10.0.0.0/8'))).toBe('10.1.2.3');
});

test('refuses a setting that is neither an address nor a CIDR, naming the entry', () => {
  for (const bad of ['10.0.0.0/33', 'proxy.local', '10.0.0.0/8/1', '2001:db8::/129', '10.0.0.0/x']) {
    expect(() => clientIp(from('10.1.2.3', '1.2.3.4') as never, env(bad))).toThrow(`${TRUSTED_PROXIES_ENV}: "${bad}" is neither an address nor a CIDR`);
  }
});
