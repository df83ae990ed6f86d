import ipaddr from 'ipaddr.js';

// Ranges ipaddr.js reports as plain 'unicast' but that no outbound request may reach.
const EXTRA_BLOCKED_CIDRS: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [
  ipaddr.parseCIDR('192.0.0.0/24'), // IETF protocol assignments (e.g. Oracle Cloud metadata 192.0.0.192)
  ipaddr.parseCIDR('2001:db8::/32'), // documentation
  ipaddr.parseCIDR('fec0::/10'), // deprecated site-local
];

/** Parses an address, turning IPv4-mapped IPv6 (::ffff:a.b.c.d) into the IPv4 address it carries. */
export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return undefined;
  return ipaddr.process(bare);
}

/**
 * True only for globally routable unicast addresses: private, loopback, link-local (including the
 * 169.254.169.254 cloud metadata endpoint), unique-local (fd00:ec2::254), CGNAT (100.100.100.200),
 * unspecified, multicast, broadcast, reserved and translation ranges are all refused.
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.range() !== 'unicast') return false;
  for (const [net, bits] of EXTRA_BLOCKED_CIDRS) {
    if (net.kind() === parsed.kind() && parsed.match(net, bits)) return false;
  }
  return true;
}
