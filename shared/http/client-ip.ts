import ipaddr from 'ipaddr.js';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerOf } from './authorizer';

/**
 * Proxies whose `X-Forwarded-For` is believed: comma-separated addresses or CIDRs (a load balancer, a CDN in
 * front of the data plane). Unset, none is: the client is the connection's address.
 */
export const TRUSTED_PROXIES_ENV = 'WEIR_TRUSTED_PROXIES';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
let parsed: { setting: string; ranges: Range[] } | undefined;

function trustedRanges(setting: string): Range[] {
  if (parsed?.setting === setting) return parsed.ranges;
  const ranges = setting
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry): Range => {
      try {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry);
        const address = ipaddr.parse(entry);
        return [address, address.kind() === 'ipv4' ? 32 : 128];
      } catch {
        throw new Error(`${TRUSTED_PROXIES_ENV}: "${entry}" is neither an address nor a CIDR`);
      }
    });
  parsed = { setting, ranges };
  return ranges;
}

/** An address in its plain form (an IPv4 address mapped into IPv6, as Node reports it, as IPv4). */
const normalised = (text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
};

const within = (address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Range[]) =>
  ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));

/**
 * The client's address: the first `X-Forwarded-For` hop when the connection came from a trusted proxy and
 * that hop is an address, else the connection's own address.
 */
export function clientIp(event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const peer = event.requestContext?.identity?.sourceIp ?? undefined;
  const peerAddress = peer ? normalised(peer) : undefined;
  const setting = env[TRUSTED_PROXIES_ENV] ?? '';
  if (!peerAddress || !setting || !within(peerAddress, trustedRanges(setting))) return peerAddress?.toString() ?? peer;
  const first = headerOf(event.headers, 'x-forwarded-for')?.split(',')[0]?.trim();
  const forwarded = first ? normalised(first) : undefined;
  return (forwarded ?? peerAddress).toString();
}
