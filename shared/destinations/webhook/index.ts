import { configurationError, instrumentationError } from '../errors';
import { flatten, get, isRecord, propertiesOf, traitsOf } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type Message } from '../types';
import type { webhookDefinition } from './definition';

/**
 * Webhook: the whole event to any URL (the reference's webhook destination, rule for rule). `fullPath`,
 * `appendPath` and `header` choose the URL and add headers as in the reference, but only a transformation of
 * the workspace can set them: the pipeline takes them out of every event as it arrived (routing-overrides.ts).
 * Even then an appendPath stays under the URL it extends, and configured headers win over the event's.
 */

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

/** A dot segment (`.`, `..`, percent-encoded too), a backslash, `//`, `@` or an encoded slash: what could climb or leave a URL. */
const CLIMBS = /(^|[/\\])(\.|%2e){1,2}([/\\?#;]|$)|\\|\/\/|@|%2f|%5c/i;

/**
 * `endpoint` with `appendPath` appended, the reference's concatenation, held under `endpoint`: the same origin,
 * the same user (none), a path that begins with its path. Anything else is the event's fault, never sent.
 */
function appended(endpoint: string, appendPath: string): string {
  const refuse = (why: string) => instrumentationError(`appendPath ${why}: it may only add to the path of ${new URL(endpoint).origin}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(appendPath)) throw refuse('holds a space or a control character');
  if (CLIMBS.test(appendPath)) throw refuse('holds a dot segment, a backslash, "//", "@" or an encoded "/"');
  const base = new URL(endpoint);
  const url = new URL(validUrl(`${endpoint}${appendPath}`));
  if (url.origin !== base.origin || url.username !== base.username || url.password !== base.password) throw refuse('changes the host');
  if (!url.pathname.startsWith(base.pathname)) throw refuse('leaves the path');
  return `${endpoint}${appendPath}`;
}

/** Headers an event may never set: the HTTP framing and the host, which Weir's client sets itself. */
const FRAMING = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** The configured headers (names lower-cased, as the reference has them), then the event's where no configured one has the name. */
function headersOf(configured: { from?: string; to: string }[] | undefined, fromEvent: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { from, to } of configured ?? []) if (from) headers[from.toLowerCase()] = to;
  if (!isRecord(fromEvent)) return headers;
  const taken = new Set(Object.keys(headers));
  for (const [key, value] of Object.entries(fromEvent)) {
    if (typeof value !== 'string' || value === '') continue;
    if (!TOKEN.test(key)) throw instrumentationError(`header ${JSON.stringify(key.slice(0, 100))} is not a valid header name`);
    if (BAD_VALUE.test(value)) throw instrumentationError(`header ${key} holds a line break or a control character`);
    const name = key.toLowerCase();
    if (taken.has(name) || FRAMING.has(name)) continue;
    taken.add(name);
    headers[key] = value;
  }
  return headers;
}

/** The path overrides a transformation's output may carry itself or under integrations.WEBHOOK. */
const overrideOf = (message: Message, key: 'fullPath' | 'appendPath'): unknown => message[key] ?? get(message, `integrations.WEBHOOK.${key}`);

export const webhook = defineDestinationCode<typeof webhookDefinition>({
  delivery: 'http',
  // An endpoint of the customer's own: several users' events at once, each user's in order.
  concurrent: true,
  invalidConfigText: (field) => (field === 'webhookUrl' ? INVALID_URL : undefined),
  transform(input, config) {
    const message: Message = structuredClone(input);
    const fullPath = overrideOf(message, 'fullPath');
    const appendPath = overrideOf(message, 'appendPath');
    let endpoint = validUrl(typeof fullPath === 'string' && fullPath !== '' ? fullPath : config.webhookUrl);
    if (typeof appendPath === 'string' && appendPath !== '') endpoint = appended(endpoint, appendPath);
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

    const headers = headersOf(config.headers, message.header);
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
