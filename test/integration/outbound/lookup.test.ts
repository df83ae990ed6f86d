import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { parseAllowlist } from '../../../shared/outbound/allowlist';
import { OutboundError, RESOLVES_TO_NON_PUBLIC } from '../../../shared/outbound/guard';
import { vettingLookup } from '../../../shared/outbound/lookup';

/** The DNS lookup given to clients that connect themselves (the AWS SDK's agents): names vetted as URLs are. */
const lookup = (allowlist: string, hostname: string, all = false) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
    vettingLookup(parseAllowlist(allowlist))(hostname, { all }, (error, address) => resolve({ error, address })),
  );

describe('vettingLookup', () => {
  it('refuses a name that resolves to a private address, with the guard’s error', async () => {
    const { error } = await lookup('', 'localhost');
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).code).toBe('blocked_resolution');
  });

  it('answers the vetted address, singly or as a list, where the allow-list lets it through', async () => {
    expect(await lookup('127.0.0.1,::1', 'localhost')).toEqual({ error: null, address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    expect((await lookup('127.0.0.1,::1', 'localhost', true)).address).toEqual([{ address: expect.any(String), family: expect.any(Number) }]);
  });

  it('is what an agent connects with: a refused name never reaches the server', async () => {
    let reached = false;
    // Where localhost leads first here (127.0.0.1, or ::1 where it is listed first).
    const first = String((await lookup('127.0.0.1,::1', 'localhost')).address);
    const server = http.createServer((_req, res) => ((reached = true), res.end('ok')));
    await new Promise<void>((resolve) => server.listen(0, first, resolve));
    const port = (server.address() as { port: number }).port;
    const get = (allowlist: string) =>
      new Promise<string>((resolve) => {
        const agent = new http.Agent({ lookup: vettingLookup(parseAllowlist(allowlist)) });
        http
          .get({ host: 'localhost', port, agent }, (res) => res.resume().on('end', () => resolve(String(res.statusCode))))
          .on('error', (error) => resolve(error.message));
      });
    try {
      expect(await get('')).toContain(`localhost ${RESOLVES_TO_NON_PUBLIC}`);
      expect(reached).toBe(false);
      expect(await get('127.0.0.1,::1')).toBe('200');
      expect(reached).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
