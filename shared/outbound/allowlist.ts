import ipaddr from 'ipaddr.js';
import { parseAddress } from './address-policy';

export const OUTBOUND_ALLOWLIST_ENV = 'WEIR_OUTBOUND_ALLOWLIST';

/** Hosts and address ranges that the SSRF guard lets through although they are not public. */
export interface OutboundAllowlist {
  readonly hosts: ReadonlySet<string>;
  readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

export const EMPTY_ALLOWLIST: OutboundAllowlist = { hosts: new Set(), ranges: [] };

/** Parses a comma-separated list of host names, IP addresses and CIDRs (e.g. `127.0.0.1,::1,localhost`). */
export function parseAllowlist(spec: string | undefined): OutboundAllowlist {
  if (!spec || !spec.trim()) return EMPTY_ALLOWLIST;
  const hosts = new Set<string>();
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      const [net, bits] = ipaddr.parseCIDR(entry);
      ranges.push(
        net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96 ? [(net as ipaddr.IPv6).toIPv4Address(), bits - 96] : [net, bits],
      );
      continue;
    }
    const address = parseAddress(entry);
    if (address) {
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    hosts.add(entry.replace(/\.$/, ''));
  }
  return { hosts, ranges };
}

export function allowlistFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundAllowlist {
  return parseAllowlist(env[OUTBOUND_ALLOWLIST_ENV]);
}

export function isHostAllowlisted(list: OutboundAllowlist, hostname: string): boolean {
  return list.hosts.size > 0 && list.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
}

export function isAddressAllowlisted(list: OutboundAllowlist, address: string): boolean {
  if (list.ranges.length === 0) return false;
  const parsed = parseAddress(address);
  if (!parsed) return false;
  return list.ranges.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits));
}
