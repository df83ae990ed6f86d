import net from 'node:net';
import type { Client, ClientConfig } from 'pg';
import { allowlistFromEnv } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl } from '../../outbound/guard';
import { DESTINATION_TIMEOUT_ENV, DESTINATION_TIMEOUT_MS } from '../http-client';

/** Longest a statement may run on the server (and, a little longer, that the client waits for it). */
export const STATEMENT_TIMEOUT_MS = 60_000;

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

function failure(error: unknown, host: string): { ok: false; error: string; retryable: boolean; status: number } {
  const e = error as Error & { code?: string };
  const text = `PostgreSQL at ${host}: ${e.message}`.slice(0, 500);
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
 * Runs `work` on a connection to the configured server, opened for it and closed after. The host is
 * user-aimed: the SSRF guard vets it and the client connects to the address it vetted, so DNS cannot answer
 * differently in between. One attempt: retrying is the caller's job. Never throws.
 */
export async function withPostgres<T>(target: PostgresTarget, work: (client: Client) => Promise<T>): Promise<PostgresOutcome<T>> {
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
  // The driver is loaded by the first delivery to a PostgreSQL destination, not by every function that knows the type.
  const { Client: PgClient } = await import('pg');
  const client = new PgClient({
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
  // A connection lost between statements is reported here; the statement under way fails with it too.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return { ok: true, value: await work(client) };
  } catch (error) {
    return failure(error, target.host);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A quoted identifier ("my""table"). */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
