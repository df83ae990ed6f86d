import { buildRequests } from '../../shared/destinations';
import { sendRequest } from '../../shared/destinations/http-client';
import type { DeletionIO, DestinationRequest, DestinationType } from '../../shared/destinations/types';
import { startDestinationServer, type DestinationServer } from './destination-server';

/**
 * What the vendor suites of test/integration/destinations and test/unit/destinations share: the vendor of a
 * user-deletion block and the refusals a type names.
 */

/**
 * A vendor server for the tests of one describe block: started before them, its record emptied before each, closed
 * after them; and the deletion IO that sends to it through the outbound guard (loopback allowed).
 */
export function deletionVendor(): { vendor: DestinationServer; io: DeletionIO } {
  let server: DestinationServer;
  beforeAll(async () => (server = await startDestinationServer()));
  afterAll(async () => server.close());
  beforeEach(() => (server.received.length = 0));
  const vendor: DestinationServer = {
    get url() {
      return server.url;
    },
    get received() {
      return server.received;
    },
    on: (prefix, responder) => server.on(prefix, responder),
    pending: () => server.pending(),
    close: () => server.close(),
  };
  return { vendor, io: { send: (r) => sendRequest(r, { allowlist: '127.0.0.1' }) } };
}

/** Each message is refused by `type` under `config` with exactly its error. */
export function expectRefusals(type: DestinationType, config: Record<string, unknown>, cases: [Record<string, unknown>, string][]) {
  for (const [message, error] of cases) expect(buildRequests(type, message, config)).toEqual({ ok: false, error });
}

/**
 * The whole request (§2.7) of a POST whose body is `json` as JSON, the other body kinds empty; with no userId (an
 * event without anonymousId), none.
 */
export const jsonPost = (
  endpoint: string,
  headers: Record<string, string>,
  json: Record<string, unknown>,
  userId: string | undefined = 'a-1',
  params: Record<string, string> = {},
): DestinationRequest => ({
  version: '1',
  type: 'REST',
  method: 'POST',
  endpoint,
  headers,
  params,
  body: { JSON: json, JSON_ARRAY: {}, XML: {}, FORM: {} },
  files: {},
  ...(userId && { userId }),
});
