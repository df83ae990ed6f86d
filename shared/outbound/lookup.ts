import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundAllowlist } from './allowlist';
import { vetUrl } from './guard';

/**
 * A DNS lookup for clients that open their own connections (the AWS SDK's agents): every host name is
 * resolved and vetted as the SSRF guard vets a URL, and the connection goes to the address it vetted, so DNS
 * cannot answer differently in between. A refused name fails the connection with the guard's OutboundError.
 */
export function vettingLookup(allowlist: OutboundAllowlist): LookupFunction {
  return (hostname, options, callback) => {
    vetUrl(new URL(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}`), allowlist).then(
      ({ address, family }) => {
        if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
