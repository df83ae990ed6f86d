import net from 'node:net';
import type Redis from 'ioredis';
import { allowlistFromEnv } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl, withoutAddress } from '../../outbound/guard';

const TIMEOUT_MS = 5_000;

// Replies that refuse the request or the credentials themselves: sending the same again cannot succeed.
// Anything else (refused connection, time-out, LOADING, READONLY during a fail-over) may pass later.
const FINAL_REPLY = /^(ERR|NOAUTH|WRONGPASS|NOPERM)\b/;

export interface RedisConfig {
  address: string;
  password?: string;
  database?: number;
  secure?: boolean;
  prefix?: string;
}

export type RedisOutcome<T> = { ok: true; value: T } | { ok: false; error: string; retryable: boolean };

/**
 * Runs `work` on a connection to the configured Redis, opened for it and closed after. The address is
 * user-aimed: the SSRF guard vets it (it reads http URLs) and the client connects to the address it vetted,
 * not the name, so DNS cannot answer differently in between. One attempt: retrying is the caller's job.
 */
export async function withRedis<T>(config: RedisConfig, work: (client: Redis) => Promise<T>): Promise<RedisOutcome<T>> {
  const at = config.address.lastIndexOf(':');
  const host = config.address.slice(0, at);
  const port = Number(config.address.slice(at + 1));
  // Only a host name or IPv4 literal, so the host vetted below is exactly the one configured.
  if (!/^[\w.-]+$/.test(host) || port < 1 || port > 65535) return { ok: false, error: `invalid Redis address ${config.address}`, retryable: false };

  let target;
  try {
    target = await vetUrl(parseOutboundUrl(`http://${host}:${port}`), allowlistFromEnv());
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { ok: false, error: error.message, retryable: error.code === 'unresolvable' };
  }

  // The client is loaded by the first delivery to a Redis destination, not by every function that knows the type.
  const { Redis: RedisClient } = await import('ioredis');
  const client = new RedisClient({
    host: target.address,
    family: target.family,
    port,
    password: config.password,
    db: config.database ?? 0,
    // Certificates name the host, not the address connected to (and SNI takes no IP literal).
    tls: config.secure ? { servername: net.isIP(target.host) ? undefined : target.host } : undefined,
    // Nothing here needs RESP3, and RESP2 is what every Redis speaks.
    protocol: 2,
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    // No INFO ready check or CLIENT SETINFO: each is one more command that could wait out the time-out.
    enableReadyCheck: false,
    disableClientInfo: true,
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
    return { ok: true, value: await work(client) };
  } catch (error) {
    const cause = reported ?? (error as Error);
    return { ok: false, error: `Redis at ${config.address}: ${withoutAddress(cause.message, target)}`, retryable: !FINAL_REPLY.test(cause.message) };
  } finally {
    // Once ended the client has let go already; disconnecting again would leave a 2 s timer behind.
    if (client.status !== 'end') client.disconnect();
  }
}
