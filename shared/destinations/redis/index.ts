import net from 'node:net';
import Redis from 'ioredis';
import { z } from 'zod';
import { allowlistFromEnv } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl } from '../../outbound/guard';
import { defineDestination, type DeletionOutcome } from '../types';

/**
 * Redis: events are delivered by the data plane's own server (SPEC §4.C rule 9). User deletion removes each
 * user's hash, `<prefix>user:<userId>`, as the reference's Redis deleter does (`DEL user:<userId>`), and
 * nothing else.
 */
const TIMEOUT_MS = 5_000;
/** Keys per DEL, so a large job never becomes one huge command. */
const KEYS_PER_DEL = 500;

// Replies that refuse the request or the credentials themselves: sending the same again cannot succeed.
// Anything else (refused connection, time-out, LOADING, READONLY during a fail-over) may pass later.
const FINAL_REPLY = /^(ERR|NOAUTH|WRONGPASS|NOPERM)\b/;

const failed = (error: string, retryable: boolean): DeletionOutcome => ({ status: 'failed', error, retryable });

export const redis = defineDestination({
  name: 'REDIS',
  displayName: 'Redis',
  delivery: 'server',
  config: z.strictObject({
    address: z.string().regex(/^[^\s:]+:\d{1,5}$/, 'address must be host:port'),
    password: z.string().optional(),
    database: z.number().int().min(0).max(15).optional(),
    secure: z.boolean().optional(),
    prefix: z.string().max(100).optional().describe('prepended to every key'),
  }),
  async deleteUsers(users, config) {
    const at = config.address.lastIndexOf(':');
    const host = config.address.slice(0, at);
    const port = Number(config.address.slice(at + 1));
    // Only a host name or IPv4 literal, so the host vetted below is exactly the one configured.
    if (!/^[\w.-]+$/.test(host) || port < 1 || port > 65535) return failed(`invalid Redis address ${config.address}`, false);

    // The address is user-aimed: the SSRF guard vets it (it reads http URLs) and the client connects to the
    // address it vetted, not the name, so DNS cannot answer differently in between.
    let target;
    try {
      target = await vetUrl(parseOutboundUrl(`http://${host}:${port}`), allowlistFromEnv());
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return failed(error.message, error.code === 'unresolvable');
    }

    const client = new Redis({
      host: target.address,
      family: target.family,
      port,
      password: config.password,
      db: config.database ?? 0,
      // Certificates name the host, not the address connected to (and SNI takes no IP literal).
      tls: config.secure ? { servername: net.isIP(target.host) ? undefined : target.host } : undefined,
      // DEL needs nothing from RESP3, and RESP2 is what every Redis speaks.
      protocol: 2,
      connectTimeout: TIMEOUT_MS,
      commandTimeout: TIMEOUT_MS,
      // No INFO ready check or CLIENT SETINFO: each is one more command that could wait out the time-out.
      enableReadyCheck: false,
      disableClientInfo: true,
      // One attempt: retrying is the regulation worker's job.
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    // The client reports connection and handshake failures here; connect() itself only says "closed".
    let reported: Error | undefined;
    client.on('error', (error: Error) => (reported ??= error));
    try {
      await client.connect();
      // A refused SELECT is only reported, and the client would go on in database 0: stop instead.
      if (reported) throw reported;
      const keys = users.map((user) => `${config.prefix ?? ''}user:${user.userId}`);
      for (let i = 0; i < keys.length; i += KEYS_PER_DEL) await client.del(...keys.slice(i, i + KEYS_PER_DEL));
      return { status: 'completed' };
    } catch (error) {
      const cause = reported ?? (error as Error);
      return failed(`Redis at ${config.address}: ${cause.message}`, !FINAL_REPLY.test(cause.message));
    } finally {
      // Once ended the client has let go already; disconnecting again would leave a 2 s timer behind.
      if (client.status !== 'end') client.disconnect();
    }
  },
});
