import { configurationError } from '../errors';
import { flatten, get, isRecord, propertiesOf, traitsOf } from '../message';
import { restRequest } from '../request';
import { defineDestination, type Message } from '../types';
import { webhookDefinition } from './definition';

/** Webhook: the whole event to any URL (the reference's webhook destination, rule for rule). */

const INVALID_URL = 'Invalid URL in destination config';

function validUrl(text: unknown): string {
  if (typeof text !== 'string') throw configurationError(INVALID_URL);
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return text;
  } catch {
    throw configurationError(INVALID_URL);
  }
}

/** The path overrides an event may carry itself or under integrations.WEBHOOK. */
const overrideOf = (message: Message, key: 'fullPath' | 'appendPath'): unknown => message[key] ?? get(message, `integrations.WEBHOOK.${key}`);

export const webhook = defineDestination(webhookDefinition, {
  delivery: 'http',
  invalidConfigText: (field) => (field === 'webhookUrl' ? INVALID_URL : undefined),
  transform(input, config) {
    const message: Message = structuredClone(input);
    const fullPath = overrideOf(message, 'fullPath');
    const appendPath = overrideOf(message, 'appendPath');
    let endpoint = validUrl(typeof fullPath === 'string' && fullPath !== '' ? fullPath : config.webhookUrl);
    if (typeof appendPath === 'string') endpoint = validUrl(`${endpoint}${appendPath}`);
    delete message.fullPath;
    delete message.appendPath;
    const integration = get(message, 'integrations.WEBHOOK');
    if (isRecord(integration)) {
      delete integration.fullPath;
      delete integration.appendPath;
    }

    if (message.request_ip !== undefined && get(message, 'context.ip') === undefined) {
      message.context = { ...(isRecord(message.context) ? message.context : {}), ip: message.request_ip };
    }

    const headers: Record<string, string> = {};
    for (const { from, to } of config.headers ?? []) if (from) headers[from.toLowerCase()] = to;
    if (isRecord(message.header)) {
      for (const [key, value] of Object.entries(message.header)) {
        if (typeof value === 'string' && value !== '') headers[key] = value;
      }
    }
    delete message.header;

    const method = config.webhookMethod ?? 'POST';
    if (method === 'GET' || method === 'DELETE') {
      const fields = message.type === 'identify' ? traitsOf(message) : propertiesOf(message);
      return [restRequest({ method, endpoint, headers, params: flatten(fields), userId: message.anonymousId })];
    }
    return [
      restRequest({
        method,
        endpoint,
        headers: { 'content-type': 'application/json', ...headers },
        json: message,
        userId: message.anonymousId,
      }),
    ];
  },
});
