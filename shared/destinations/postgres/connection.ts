import net from 'node:net';
import type { ClientConfig, Pool, PoolClient } from 'pg';
import { allowlistFromEnv } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl, withoutAddress } from '../../outbound/guard';
import { keyMaterial } from '../../key-material';
import { TenantCache, type DestinationScope } from '../../tenant-cache';
import { DESTINATION_TIMEOUT_ENV, DESTINATION_TIMEOUT_MS } from '../http-client';

/** Longest a statement may run on the server (and, a little longer, that the client waits for it). */
const STATEMENT_TIMEOUT_MS = 60_000;

export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
  /** disable: plain; require: encrypted, certificate not checked; verify-full: certificate and host name checked. */
  sslMode: 'disable' | 'require' | 'verify-full';
  caCertificate?: string;
}

export type PostgresOutcome<T> = { ok: true; value: T } | { ok: false; error: string; retryable: boolean; status: number };

/** Connecting is bounded by the destination time-out (`WEIR_DESTINATION_TIMEOUT_MS`, 10 s). */
function connectTimeoutMs(): number {
  const configured = Number(process.env[DESTINATION_TIMEOUT_ENV]);
  return Number.isInteger(configured) && configured > 0 ? configured : DESTINATION_TIMEOUT_MS;
}

/**
 * SQLSTATE classes worth another try: a lost connection (08), a rolled-back transaction (40: deadlock,
 * serialization), resources (53), an operator's shutdown or start-up (57P0x), a lock not granted (55P03) and
 * a statement cancelled by its time-out (57014). Wrong credentials (28), a missing database (3D), privileges
 * and anything else will not pass by themselves.
 */
const RETRY_STATE = /^(08|40|53|57P0|55P03|57014)/;

/** What a failed connection or statement comes to; the text names the host as configured, never the address connected to. */
function failure(error: unknown, vetted: { host: string; address: string }): { ok: false; error: string; retryable: boolean; status: number } {
  const e = error as Error & { code?: string };
  const text = `PostgreSQL at ${vetted.host}: ${withoutAddress(e.message, vetted)}`.slice(0, 500);
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
    const retryable = RETRY_STATE.test(e.code);
    return { ok: false, error: `${text} (SQLSTATE ${e.code})`, retryable, status: retryable ? 503 : 400 };
  }
  // No SQLSTATE: the connection itself failed (refused, reset, timed out) or TLS was refused by the server.
  if (/does not support SSL|certificate|self.signed/i.test(e.message)) return { ok: false, error: text, retryable: false, status: 400 };
  return { ok: false, error: text, retryable: true, status: /timeout|timed out/i.test(e.message) ? 504 : 503 };
}

function tlsOptions(target: PostgresTarget): ClientConfig['ssl'] {
  if (target.sslMode === 'disable') return false;
  // Certificates name the host, not the address connected to (and SNI takes no IP literal).
  const servername = net.isIP(target.host) ? undefined : target.host;
  if (target.sslMode === 'require') return { rejectUnauthorized: false, servername };
  return { rejectUnauthorized: true, servername, ca: target.caCertificate };
}

/**
 * Open connections, per destination and login (a hash of the settings, the password among them), kept between
 * chunks for IDLE_MS: a chunk needs no new connection and password exchange of its own. A connection is only
 * ever used again by the destination that opened it, with the same settings. Bounded in number; the least
 * recently used goes first.
 */
const MAX_POOLS = 16;
const IDLE_MS = 10_000;
const CONNECTIONS_PER_POOL = 2;
const POOLS = new TenantCache<DestinationScope & { material: string }, Pool>({ max: MAX_POOLS, onEvict: (pool) => pool.end().catch(() => undefined) });
/** Connections that ran work before: one of these failing on its connection may just have gone stale while idle. */
const USED = new WeakSet<PoolClient>();

/** Work done on a connection of its own, closed after (a user deletion: rare, and told no destination id). */
export const ONE_OFF = 'one-off';

async function poolFor(owner: DestinationScope | typeof ONE_OFF, settings: ClientConfig): Promise<Pool> {
  const key =
    owner === ONE_OFF ? undefined : { workspaceId: owner.workspaceId, destinationId: owner.destinationId, material: keyMaterial(JSON.stringify(settings)) };
  const known = key && POOLS.get(key);
  if (known) return known;
  // The driver is loaded by the first delivery to a PostgreSQL destination, not by every function that knows the type.
  const { Pool: PgPool } = await import('pg');
  const pool = new PgPool({ ...settings, max: CONNECTIONS_PER_POOL, idleTimeoutMillis: IDLE_MS, allowExitOnIdle: true });
  // An idle connection the server closes is reported here, and the pool drops it.
  pool.on('error', () => undefined);
  return key ? POOLS.set(key, pool) : pool;
}

/** Closes every kept connection (a process that is done delivering). */
export async function endPostgresPools(): Promise<void> {
  await POOLS.clear();
}

const lostConnection = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P0');
};

/**
 * Runs `work` on a connection to the configured server. The host is user-aimed: the SSRF guard vets it and
 * the client connects to the address it vetted, so DNS cannot answer differently in between. A kept
 * connection that turns out closed is replaced once; otherwise one attempt: retrying is the caller's job.
 * The work leaves no transaction open. `owner` is the destination whose configuration `target` is: the
 * connections kept for it are its own (ONE_OFF: none is kept). Never throws.
 */
export async function withPostgres<T>(
  owner: DestinationScope | typeof ONE_OFF,
  target: PostgresTarget,
  work: (client: PoolClient) => Promise<T>,
): Promise<PostgresOutcome<T>> {
  // Only a host name or IPv4 literal, so the host vetted below is exactly the one configured.
  if (!/^[\w.-]+$/.test(target.host)) return { ok: false, error: `invalid PostgreSQL host ${target.host}`, retryable: false, status: 400 };
  let address: string;
  try {
    address = (await vetUrl(parseOutboundUrl(`http://${target.host}:${target.port}`), allowlistFromEnv())).address;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const retryable = error.code === 'unresolvable';
    return { ok: false, error: error.message, retryable, status: retryable ? 502 : 403 };
  }
  const pool = await poolFor(owner, {
    host: address,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password,
    ssl: tlsOptions(target),
    application_name: 'weir',
    connectionTimeoutMillis: connectTimeoutMs(),
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 5_000,
  });
  try {
    return await attempts(pool, work, { host: target.host, address });
  } finally {
    if (owner === ONE_OFF) await pool.end().catch(() => undefined);
  }
}

async function attempts<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, vetted: { host: string; address: string }): Promise<PostgresOutcome<T>> {
  for (let attempt = 1; ; attempt++) {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      return failure(error, vetted);
    }
    const reused = USED.has(client);
    try {
      const value = await work(client);
      USED.add(client);
      client.release();
      return { ok: true, value };
    } catch (error) {
      // A connection that failed is never handed out again.
      client.release(true);
      if (!(reused && attempt === 1 && lostConnection(error))) return failure(error, vetted);
    }
  }
}

/** A quoted identifier ("my""table"). */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
