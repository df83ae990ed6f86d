import { BlockList, isIP } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerOf } from './authorizer';

/**
 * Proxies whose `X-Forwarded-For` is believed: comma-separated addresses or CIDRs (a load balancer, a CDN in
 * front of the data plane). Unset, none is: the client is the connection's address.
 */
export const TRUSTED_PROXIES_ENV = 'WEIR_TRUSTED_PROXIES';

let parsed: { setting: string; trusted: BlockList } | undefined;

/** The trusted proxies as Node's own address list (`net.BlockList`), parsed once per setting. */
function trustedProxies(setting: string): BlockList {
  if (parsed?.setting === setting) return parsed.trusted;
  const trusted = new BlockList();
  for (const entry of setting
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [text = '', bits, extra] = entry.split('/');
    const address = normalised(text);
    const family = address ? isIP(address) : 0;
    const prefix = bits === undefined ? (family === 4 ? 32 : 128) : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    if (!address || extra !== undefined || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
      throw new Error(`${TRUSTED_PROXIES_ENV}: "${entry}" is neither an address nor a CIDR`);
    }
    trusted.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  parsed = { setting, trusted };
  return trusted;
}

/**
 * An address in its plain form, or undefined for what is not one: an IPv4 address mapped into IPv6 (as Node
 * reports it) as IPv4, an IPv6 address compressed and in lower case (as the URL standard writes it).
 */
function normalised(text: string): string | undefined {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text)?.[1];
  const address = mapped ?? text;
  const family = isIP(address);
  if (family === 4) return address;
  return family === 6 ? new URL(`http://[${address}]`).hostname.slice(1, -1) : undefined;
}

/**
 * The client's address: the first `X-Forwarded-For` hop when the connection came from a trusted proxy and
 * that hop is an address, else the connection's own address.
 */
export function clientIp(event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const peer = event.requestContext?.identity?.sourceIp ?? undefined;
  const peerAddress = peer ? normalised(peer) : undefined;
  const setting = env[TRUSTED_PROXIES_ENV] ?? '';
  if (!peerAddress || !setting || !trustedProxies(setting).check(peerAddress, isIP(peerAddress) === 4 ? 'ipv4' : 'ipv6')) return peerAddress ?? peer;
  const first = headerOf(event.headers, 'x-forwarded-for')?.split(',')[0]?.trim();
  return (first && normalised(first)) || peerAddress;
}
