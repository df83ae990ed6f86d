/**
 * Each Braze instance's REST endpoint, from "API and SDK endpoints"
 * (braze.com/docs/user_guide/administrative/access_braze/sdk_endpoints): the definition lists the instances, the
 * code sends to them.
 */
export const INSTANCES = {
  'US-01': 'https://rest.iad-01.braze.com',
  'US-02': 'https://rest.iad-02.braze.com',
  'US-03': 'https://rest.iad-03.braze.com',
  'US-04': 'https://rest.iad-04.braze.com',
  'US-05': 'https://rest.iad-05.braze.com',
  'US-06': 'https://rest.iad-06.braze.com',
  'US-07': 'https://rest.iad-07.braze.com',
  'US-08': 'https://rest.iad-08.braze.com',
  'US-10': 'https://rest.us-10.braze.com',
  'EU-01': 'https://rest.fra-01.braze.eu',
  'EU-02': 'https://rest.fra-02.braze.eu',
  'AU-01': 'https://rest.au-01.braze.com',
} as const;
