import http from 'node:http';
import https from 'node:https';
import type * as SnsSdk from '@aws-sdk/client-sns';
import type { AlertMail, AlertMailMessage } from '../domain/alerts/ports';
import { destinationTimeoutMs } from '../destinations/http-client';
import { allowlistFromEnv } from '../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl } from '../outbound/guard';
import { vettingLookup } from '../outbound/lookup';

/**
 * The prefix of the alert topics' names (the CDK stack sets it to `weir-<stage>-alerts-` for the alerts and
 * alert-evaluator functions, which may use topics of that prefix only). Without it, rules cannot mail.
 */
export const ALERTS_SNS_TOPIC_PREFIX_ENV = 'WEIR_ALERTS_SNS_TOPIC_PREFIX';

/** The message attribute every alert carries and every subscription filters on: the address it is for. */
export const ADDRESS_ATTRIBUTE = 'address';

/** Subscribing is part of an API request, whose function has 10 s in all: SNS gets at most 5 of them. */
const SUBSCRIBE_TIMEOUT_MS = 5000;

/** One topic per workspace. */
export const alertTopicName = (prefix: string, workspaceId: string) => `${prefix}${workspaceId}`;

/** A subscription takes only the messages published for its own address. */
export const addressFilterPolicy = (address: string) => JSON.stringify({ [ADDRESS_ATTRIBUTE]: [address] });

type Sdk = typeof SnsSdk;
type Client = SnsSdk.SNSClient;
interface Exchange {
  sdk: Sdk;
  client: Client;
  topicArn: string;
  signal: AbortSignal;
}

interface SdkError extends Error {
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
}

const REFUSED_ADDRESS = new Set(['blocked_address', 'blocked_resolution', 'invalid_url', 'invalid_protocol', 'url_required']);

function outboundErrorOf(error: unknown): OutboundError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = (e as SdkError).cause, depth++) if (e instanceof OutboundError) return e;
  return undefined;
}

/** What a failed SNS call comes to: SNS's status and error, or the guard's refusal (403), a time-out (504), a network failure (502). */
export function snsFailure(error: unknown): { status: number; error: string } {
  const e = error as SdkError;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return { status, error: `SNS answered ${status} ${e.name}: ${e.message}`.slice(0, 500) };
  const refused = outboundErrorOf(error);
  if (refused) return { status: refused.code === 'timeout' ? 504 : REFUSED_ADDRESS.has(refused.code) ? 403 : 502, error: refused.message };
  const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
  return { status: timedOut ? 504 : 502, error: `SNS request failed: ${e.message || e.name}`.slice(0, 500) };
}

/**
 * One exchange with SNS: the workspace's topic (CreateTopic is idempotent and answers the topic's ARN), then
 * `act` on it. The whole exchange is bounded by `ms`; connections go to addresses the SSRF
 * guard vetted (AWS's regional endpoint, or `AWS_ENDPOINT_URL_SNS`, which the SDK reads).
 */
async function withTopic<T>(prefix: string, workspaceId: string, ms: number, act: (x: Exchange) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  // Loaded by the first e-mail, not by every cold start of the functions that may send one.
  const sdk = await import('@aws-sdk/client-sns');
  const lookup = vettingLookup(allowlistFromEnv());
  const client = new sdk.SNSClient({
    maxAttempts: 1,
    requestHandler: { httpAgent: new http.Agent({ lookup }), httpsAgent: new https.Agent({ lookup }), connectionTimeout: ms, requestTimeout: ms },
  });
  try {
    // A host name is vetted by the lookup when connecting; an IP literal is never looked up, so it is vetted here.
    const configured = process.env.AWS_ENDPOINT_URL_SNS ?? process.env.AWS_ENDPOINT_URL;
    if (configured) await vetUrl(parseOutboundUrl(configured), allowlistFromEnv());
    const { TopicArn } = await client.send(new sdk.CreateTopicCommand({ Name: alertTopicName(prefix, workspaceId) }), { abortSignal: signal });
    if (!TopicArn) throw new Error('CreateTopic answered no TopicArn');
    return await act({ sdk, client, topicArn: TopicArn, signal });
  } finally {
    client.destroy();
  }
}

/** Alert e-mail through the deployment's SNS (see the port); enabled by ALERTS_SNS_TOPIC_PREFIX_ENV, read when used. */
export class SnsAlertMail implements AlertMail {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  private prefix(): string | undefined {
    return this.env[ALERTS_SNS_TOPIC_PREFIX_ENV] || undefined;
  }

  enabled(): boolean {
    return this.prefix() !== undefined;
  }

  async subscribe(workspaceId: string, address: string): Promise<{ subscription: string } | { error: string }> {
    const prefix = this.prefix();
    if (!prefix) return { error: `${ALERTS_SNS_TOPIC_PREFIX_ENV} is not set` };
    try {
      const ms = Math.min(destinationTimeoutMs(), SUBSCRIBE_TIMEOUT_MS);
      return await withTopic(prefix, workspaceId, ms, async ({ sdk, client, topicArn, signal }) => {
        const command = new sdk.SubscribeCommand({
          TopicArn: topicArn,
          Protocol: 'email',
          Endpoint: address,
          Attributes: { FilterPolicy: addressFilterPolicy(address), FilterPolicyScope: 'MessageAttributes' },
        });
        const { SubscriptionArn } = await client.send(command, { abortSignal: signal });
        return { subscription: SubscriptionArn ?? 'pending confirmation' };
      });
    } catch (error) {
      return { error: snsFailure(error).error };
    }
  }

  async publish(workspaceId: string, mail: AlertMailMessage): Promise<{ status: number; messageId?: string; error?: string }> {
    const prefix = this.prefix();
    if (!prefix) return { status: 503, error: `${ALERTS_SNS_TOPIC_PREFIX_ENV} is not set: this deployment has no SNS for alerts` };
    try {
      return await withTopic(prefix, workspaceId, destinationTimeoutMs(), async ({ sdk, client, topicArn, signal }) => {
        const command = new sdk.PublishCommand({
          TopicArn: topicArn,
          Subject: mail.subject,
          Message: mail.message,
          MessageAttributes: { [ADDRESS_ATTRIBUTE]: { DataType: 'String', StringValue: mail.address } },
        });
        const answer = await client.send(command, { abortSignal: signal });
        return { status: answer.$metadata.httpStatusCode ?? 200, ...(answer.MessageId && { messageId: answer.MessageId }) };
      });
    } catch (error) {
      return snsFailure(error);
    }
  }
}
