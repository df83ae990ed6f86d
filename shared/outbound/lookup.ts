import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundAllowlist } from './allowlist';
import { vetUrl, type VettedTarget } from './guard';

/**
 * A DNS lookup for clients that open their own connections (the AWS SDK's agents): every host name is
 * resolved and vetted as the SSRF guard vets a URL, and the connection goes to the address it vetted, so DNS
 * cannot answer differently in between. A refused name fails the connection with the guard's OutboundError.
 * Each vetted target is added to `vetted`, so a caller can put host names back in its connection errors.
 */
export function vettingLookup(allowlist: OutboundAllowlist, vetted: VettedTarget[] = []): LookupFunction {
  return (hostname, options, callback) => {
    vetUrl(new URL(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}`), allowlist).then(
      (target) => {
        vetted.push(target);
        const { address, family } = target;
        if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
