import { instrumentationError } from '../errors';
import { anonymousIdOf, eventTime, firstOf, get, isRecord, numberOf, propertiesOf, traitsOf, trimBase, userIdOf, viewEvent } from '../message';
import { postJson } from '../request';
import { deleteInSlices } from '../deletion';
import { defineDestinationCode, type ChunkEventVerdict, type Message } from '../types';
import type { AmplitudeConfig, amplitudeDefinition } from './definition';

/**
 * Amplitude: events through the HTTP V2 API, user deletion through the User Privacy API.
 * Docs: amplitude.com/docs/apis/analytics/http-v2, amplitude.com/docs/apis/analytics/user-privacy.
 */
const HOSTS = {
  standard: { events: 'https://api2.amplitude.com', privacy: 'https://amplitude.com' },
  EU: { events: 'https://api.eu.amplitude.com', privacy: 'https://analytics.eu.amplitude.com' },
} as const;

const hosts = (config: AmplitudeConfig) =>
  config.baseUrl ? { events: trimBase(config.baseUrl), privacy: trimBase(config.baseUrl) } : HOSTS[config.residencyServer ?? 'standard'];

/** HTTP V2 "Keys for the event argument": the device and library fields taken from the event's context. */
function deviceFields(message: Message): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    platform: firstOf(message, 'context.device.type', 'channel'),
    os_name: get(message, 'context.os.name'),
    os_version: get(message, 'context.os.version'),
    device_brand: get(message, 'context.device.manufacturer'),
    device_model: get(message, 'context.device.model'),
    carrier: get(message, 'context.network.carrier'),
    app_version: get(message, 'context.app.version'),
    language: get(message, 'context.locale'),
    ip: firstOf(message, 'context.ip', 'request_ip'),
    library: 'weir',
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

/**
 * HTTP V2 `session_id`: "the start time of the session in milliseconds since epoch", which is what RudderStack's
 * JavaScript SDK v3 puts in `context.sessionId` (integrations.Amplitude.session_id, where given, wins). Without it
 * Amplitude counts every server-sent event as its own session.
 */
function sessionOf(message: Message): Record<string, unknown> {
  const session = numberOf(firstOf(message, 'integrations.Amplitude.session_id', 'context.sessionId'));
  return session !== undefined && session > 0 ? { session_id: Math.trunc(session) } : {};
}

/**
 * HTTP V2 revenue fields: `price` (with `quantity`), else `revenue`, make Amplitude count the event's revenue;
 * `productId` and `revenueType` describe it. Taken from the event spec's properties (revenue, price, quantity,
 * product_id, revenue_type) when they are numbers (or numeric text).
 */
function revenueOf(properties: Record<string, unknown>): Record<string, unknown> {
  const price = numberOf(properties.price);
  const revenue = numberOf(properties.revenue);
  if (price === undefined && revenue === undefined) return {};
  const quantity = numberOf(properties.quantity);
  const productId = firstOf(properties, 'product_id', 'productId');
  const revenueType = firstOf(properties, 'revenue_type', 'revenueType');
  return {
    ...(price !== undefined && { price, quantity: quantity ?? 1 }),
    ...(revenue !== undefined && { revenue }),
    ...((typeof productId === 'string' || typeof productId === 'number') && { productId: String(productId) }),
    ...(typeof revenueType === 'string' && { revenueType }),
  };
}

/** One Amplitude event for one message (HTTP V2 "Upload request body parameters"). */
function amplitudeEvent(message: Message): Record<string, unknown> {
  const userId = userIdOf(message);
  const deviceId = anonymousIdOf(message);
  // HTTP V2: user_id or device_id is required.
  if (!userId && !deviceId) throw instrumentationError('Amplitude needs a userId or an anonymousId (user_id or device_id)');
  const base: Record<string, unknown> = {
    ...(userId && { user_id: userId }),
    ...(deviceId && { device_id: deviceId }),
    ...(eventTime(message) && { time: eventTime(message)!.getTime() }),
    // insert_id lets Amplitude drop a retried event it already has.
    ...(typeof message.messageId === 'string' && { insert_id: message.messageId }),
    ...sessionOf(message),
    ...deviceFields(message),
  };
  switch (message.type) {
    case 'identify':
      // Identify: "$identify" with user_properties operations ($set), as the HTTP V2 docs allow.
      return { ...base, event_type: '$identify', user_properties: { $set: traitsOf(message) } };
    case 'track': {
      if (typeof message.event !== 'string' || message.event === '') throw instrumentationError('a track event needs an event name');
      const traits = traitsOf(message);
      return {
        ...base,
        event_type: message.event,
        event_properties: propertiesOf(message),
        ...revenueOf(propertiesOf(message)),
        ...(Object.keys(traits).length > 0 && { user_properties: traits }),
      };
    }
    case 'page':
    case 'screen': {
      const { event, properties } = viewEvent(message);
      return { ...base, event_type: event, event_properties: properties };
    }
    case 'group': {
      // Groups: the event's "groups" field maps a group type to the group's id.
      const groupId = firstOf(message, 'groupId');
      if (groupId === undefined) throw instrumentationError('a group event needs a groupId');
      const traits = isRecord(message.traits) ? message.traits : {};
      const groupType = typeof traits.groupType === 'string' && traits.groupType !== '' ? traits.groupType : 'group';
      return {
        ...base,
        event_type: '$identify',
        groups: { [groupType]: String(groupId) },
        user_properties: { $set: { [groupType]: String(groupId) } },
      };
    }
    default:
      throw instrumentationError(
        `message type ${String(message.type)} is not supported by Amplitude (alias: map users with Amplitude's User Mapping API instead)`,
      );
  }
}

/**
 * HTTP V2 answers that name events ("Batch and retry HTTP V2 API requests"): a 400 lists the events it
 * rejected (events_with_invalid_fields, events_with_missing_fields, silenced_events) and ingests none, so
 * the others go again; a 429 lists throttled_events, the others were ingested.
 */
function amplitudeVerdicts(answer: { status: number; response: unknown }, count: number): ChunkEventVerdict[] | undefined {
  if (!isRecord(answer.response)) return undefined;
  const body = answer.response;
  const indexes = (...fields: string[]) => {
    const found = new Set<number>();
    for (const field of fields) {
      const value = body[field];
      const lists = Array.isArray(value) ? [value] : isRecord(value) ? Object.values(value) : [];
      for (const list of lists) if (Array.isArray(list)) for (const i of list) if (Number.isInteger(i)) found.add(i as number);
    }
    return found;
  };
  if (answer.status === 400) {
    const rejected = indexes('events_with_invalid_fields', 'events_with_missing_fields', 'silenced_events');
    if (rejected.size === 0) return undefined;
    const error = `Amplitude rejected the event: ${String(body.error ?? 'invalid fields')}`;
    return Array.from({ length: count }, (_, i) =>
      rejected.has(i) ? { kind: 'refused', error } : { kind: 'retryable', error: 'sent again without the events Amplitude rejected' },
    );
  }
  if (answer.status === 429) {
    const throttled = indexes('throttled_events');
    if (throttled.size === 0) return undefined;
    return Array.from({ length: count }, (_, i) =>
      throttled.has(i) ? { kind: 'retryable', error: 'Amplitude throttled the event (429)' } : { kind: 'delivered' },
    );
  }
  return undefined;
}

/**
 * HTTP V2 "Upload request body parameters", `options.min_id_length` (amplitude.com/docs/apis/analytics/http-v2,
 * read 2026-11-29): user_id and device_id shorter than 5 characters are refused unless this is set lower. Weir
 * takes any non-empty id (a userId such as "42"), so every request says 1.
 */
const OPTIONS = { min_id_length: 1 };

export const amplitude = defineDestinationCode<typeof amplitudeDefinition>({
  delivery: 'http',
  // HTTP V2: up to 2,000 events and 1 MB per request; insert_id (the messageId) makes a resent chunk harmless.
  batch: { maxEvents: 1000, maxBytes: 900_000, lists: ['JSON.events'], verdicts: amplitudeVerdicts },
  transform(message, config) {
    // HTTP V2 API: POST /2/httpapi, JSON {api_key, events}.
    return [
      postJson(
        `${hosts(config).events}/2/httpapi`,
        { api_key: config.apiKey, events: [amplitudeEvent(message)], options: OPTIONS },
        { headers: { Accept: '*/*' }, userId: message.anonymousId },
      ),
    ];
  },
  async deleteUsers(users, config, io) {
    if (!config.apiSecret) return { status: 'failed', error: 'apiSecret is required to delete users', retryable: false };
    // User Privacy API: POST /api/2/deletions/users, Basic api key:secret key, up to 100 ids per request.
    return deleteInSlices('Amplitude', users, 100, io, (slice) =>
      postJson(
        `${hosts(config).privacy}/api/2/deletions/users`,
        { user_ids: slice.map((u) => u.userId), requester: 'weir', ignore_invalid_id: 'True' },
        { headers: { Authorization: `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`).toString('base64')}` } },
      ),
    );
  },
});
