import net from 'node:net';
import tls from 'node:tls';
import type { ISocketFactory, Producer, SASLOptions } from 'kafkajs';
import { allowlistFromEnv, type OutboundAllowlist } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl, withoutAddress, type VettedTarget } from '../../outbound/guard';

import { destinationTimeoutMs } from '../http-client';

/** Connecting (TCP, TLS, SASL) may take half of a request's time-out, at most 5 s. */
const connectTimeoutMs = () => Math.min(5_000, Math.ceil(destinationTimeoutMs() / 2));

export interface KafkaConnectionConfig {
  hostname: string;
  port: number;
  sslEnabled?: boolean;
  caCertificate?: string;
  useSASL?: boolean;
  saslType?: 'plain' | 'sha256' | 'sha512';
  username?: string;
  password?: string;
}

export type KafkaOutcome<T> = { ok: true; value: T } | { ok: false; error: string; retryable: boolean; refusedAddress?: boolean };

/**
 * Every connection the client opens, to the configured broker and to each broker the cluster's metadata
 * names, is vetted by the SSRF guard first and made to the address vetted (not the name again), so neither
 * a configured nor an advertised broker can reach a private address that is not allow-listed.
 */
function guardedSocketFactory(allowlist: OutboundAllowlist, refusals: string[], vetted: VettedTarget[] = []): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const raw = new net.Socket();
    const socket = ssl ? tls.connect({ socket: raw, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect) : raw;
    const url = `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    Promise.resolve()
      .then(() => vetUrl(parseOutboundUrl(url), allowlist))
      .then(
        (target) => {
          vetted.push(target);
          raw.connect({ host: target.address, port, family: target.family }, ssl ? undefined : onConnect);
        },
        (error: Error) => {
          if (error instanceof OutboundError && error.code !== 'unresolvable') refusals.push(error.message);
          socket.destroy(error);
        },
      );
    return socket;
  };
}

const MECHANISMS = { plain: 'plain', sha256: 'scram-sha-256', sha512: 'scram-sha-512' } as const;

function saslOf(config: KafkaConnectionConfig): SASLOptions | undefined {
  if (!config.useSASL) return undefined;
  return { mechanism: MECHANISMS[config.saslType ?? 'plain'], username: config.username ?? '', password: config.password ?? '' } as SASLOptions;
}

/** The innermost error kafkajs wrapped (its retrier wraps the one that happened). */
function rootOf(error: unknown): Error & { retriable?: boolean } {
  let current = error as Error & { cause?: unknown; retriable?: boolean };
  while (current?.cause instanceof Error) current = current.cause as typeof current;
  return current;
}

/** What a failed exchange comes to; its text names brokers by host, never by the address connected to. */
function failureOf(error: unknown, refusals: string[], vetted: VettedTarget[]): KafkaOutcome<never> {
  if (refusals.length > 0) return { ok: false, error: refusals[0]!, retryable: false, refusedAddress: true };
  const root = rootOf(error);
  const authentication = root?.name === 'KafkaJSSASLAuthenticationError';
  const retryable = !authentication && root?.retriable !== false;
  const message = vetted.reduce((text, target) => withoutAddress(text, target), root?.message ?? String(error));
  return { ok: false, error: message, retryable };
}

/**
 * Runs `work` with a producer connected to the configured cluster, disconnected after. One attempt (kafkajs's
 * own retries are off): retrying is the caller's job. Never throws.
 */
export async function withProducer<T>(config: KafkaConnectionConfig, work: (producer: Producer) => Promise<T>): Promise<KafkaOutcome<T>> {
  const refusals: string[] = [];
  const vetted: VettedTarget[] = [];
  // The client is loaded by the first delivery to a Kafka destination, not by every function that knows the type.
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    clientId: 'weir',
    brokers: [`${config.hostname}:${config.port}`],
    ssl: config.sslEnabled ? (config.caCertificate ? { ca: [config.caCertificate] } : true) : false,
    sasl: saslOf(config),
    connectionTimeout: connectTimeoutMs(),
    authenticationTimeout: connectTimeoutMs(),
    requestTimeout: destinationTimeoutMs(),
    enforceRequestTimeout: true,
    retry: { retries: 0 },
    socketFactory: guardedSocketFactory(allowlistFromEnv(), refusals, vetted),
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  try {
    await producer.connect();
    return { ok: true, value: await work(producer) };
  } catch (error) {
    return failureOf(error, refusals, vetted);
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
}
