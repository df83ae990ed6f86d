import { HOUR_MS } from '../age-window';
import { configurationError, instrumentationError } from '../errors';
import { eventTime, firstOf, flatten, isRecord, propertiesOf, trackEventName, traitsOf, trimBase, userIdOf } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type Message } from '../types';
import { ecommerceEvent } from './ecommerce';
import { LIMITS, paramName, paramValue, userPropertyName } from './names';
import type { Ga4Config, ga4Definition } from './definition';

/**
 * Google Analytics 4 through the Measurement Protocol. Docs: developers.google.com/analytics/devguides/collection/
 * protocol/ga4 ("Send Measurement Protocol events": request format and "Limitations"; "Measurement Protocol
 * reference": JSON POST body and "Reserved names"; "Send user properties"; "Validate events"; events reference).
 *
 * No user deletion: GA4 deletes a user's data only through the User Deletion API of the Admin API, which needs an
 * OAuth service account with edit access to the property; the Measurement Protocol's api_secret cannot do it.
 */

const DEFAULT_BASE = 'https://www.google-analytics.com';

/** Custom event params: top-level numbers, booleans and strings as they are, nested values flattened to text. */
function customParams(properties: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(properties)) {
    if (value === null || value === undefined) continue;
    const leaves = typeof value === 'object' ? flatten(value, key) : { [key]: value };
    for (const [name, leaf] of Object.entries(leaves)) {
      const cleaned = paramName(name);
      if (cleaned && !(cleaned in params)) params[cleaned] = paramValue(cleaned, leaf);
    }
  }
  return params;
}

/** "Limitations": at most 25 params per event; the mapped ones come first, so they are the ones kept. */
const limitParams = (params: Record<string, unknown>) => Object.fromEntries(Object.entries(params).slice(0, LIMITS.paramsPerEvent));

const without = (record: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));

// "Reserved names": ad_impression, in_app_purchase and screen_view are only allowed for app streams.
const APP_ONLY_EVENTS = new Set(['ad_impression', 'in_app_purchase', 'screen_view']);

/** An event name as GA4 takes it: snake_case, starting with a letter, [A-Za-z0-9_] only, at most 40 characters. */
function ga4EventName(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase()
    .replace(/^[^a-z]+/, '')
    .replace(/_+$/, '')
    .slice(0, LIMITS.nameLength)
    .replace(/_+$/, '');
  if (snake === '') throw instrumentationError(`event name "${name}" has no letters GA4 can use (names start with a letter and take only [A-Za-z0-9_])`);
  return snake;
}

// Measurement Protocol reference, "Reserved names": event names that can't be sent (and the SDKs' reserved prefixes).
const RESERVED_EVENTS = new Set([
  'ad_activeview',
  'ad_click',
  'ad_exposure',
  'ad_query',
  'ad_reward',
  'adunit_exposure',
  'app_clear_data',
  'app_exception',
  'app_install',
  'app_remove',
  'app_store_refund',
  'app_update',
  'app_upgrade',
  'dynamic_link_app_open',
  'dynamic_link_app_update',
  'dynamic_link_first_open',
  'error',
  'firebase_campaign',
  'firebase_in_app_message_action',
  'firebase_in_app_message_dismiss',
  'firebase_in_app_message_impression',
  'first_open',
  'first_visit',
  'notification_dismiss',
  'notification_foreground',
  'notification_open',
  'notification_receive',
  'notification_send',
  'os_update',
  'session_start',
  'user_engagement',
]);

function checkEventName(name: string, config: Ga4Config, original: string): string {
  if (RESERVED_EVENTS.has(name) || /^(firebase_|google_|ga_)/.test(name)) {
    throw instrumentationError(`event name "${original}" becomes "${name}", a name GA4 reserves`);
  }
  if (APP_ONLY_EVENTS.has(name) && (config.typesOfClient ?? 'gtag') === 'gtag') {
    throw instrumentationError(`GA4 takes ${name} only from app streams (typesOfClient firebase)`);
  }
  return name;
}

/** "Send user properties": each trait as {value}; names at most 24 characters, values at most 36, not reserved. */
function userProperties(traits: Record<string, unknown>): Record<string, { value: unknown }> {
  const out: Record<string, { value: unknown }> = {};
  for (const [key, value] of Object.entries(traits)) {
    const name = userPropertyName(key);
    if (!name || Object.keys(out).length >= LIMITS.userProperties) continue;
    if (typeof value === 'number' || typeof value === 'boolean') out[name] = { value };
    else if (typeof value === 'string') out[name] = { value: value.slice(0, LIMITS.userPropertyValueLength) };
  }
  return out;
}

/**
 * "Send Measurement Protocol events": "In order for user activity to display in reports like Realtime,
 * engagement_time_msec and session_id must be supplied as part of the params for an event" (use cases: the
 * milliseconds since the previous event). The session is the SDK's: integrations.GA4.sessionId (gtag's own, as
 * its page read it), else context.sessionId (RudderStack's JavaScript SDK v3); the engagement time the event's own
 * `engagement_time_msec`, else 1 ms, which makes the event count as activity without lengthening the session's
 * engaged time. An event without a session gets neither: GA4 could not place it in one.
 */
function sessionParams(message: Message, properties: Record<string, unknown>): Record<string, unknown> {
  const sessionId = firstOf(message, 'integrations.GA4.sessionId', 'context.sessionId');
  if (typeof sessionId !== 'string' && typeof sessionId !== 'number') return {};
  const engagement = properties.engagement_time_msec;
  const engagementMs = typeof engagement === 'number' && Number.isFinite(engagement) && engagement >= 0 ? Math.round(engagement) : 1;
  return { session_id: paramValue('session_id', sessionId), engagement_time_msec: engagementMs };
}

/**
 * The request's `consent` ("Measurement Protocol reference", consent: ad_user_data and ad_personalization, each
 * GRANTED or DENIED), as the page's own consent mode gave it: integrations.GA4.consent. Nothing is assumed where
 * the event says nothing (GA4 then applies the property's settings).
 */
function consentOf(message: Message): Record<string, string> | undefined {
  const given = firstOf(message, 'integrations.GA4.consent');
  if (!isRecord(given)) return undefined;
  const consent = Object.fromEntries(
    ['ad_user_data', 'ad_personalization'].flatMap((key) => {
      const value = typeof given[key] === 'string' ? (given[key] as string).toUpperCase() : undefined;
      return value === 'GRANTED' || value === 'DENIED' ? [[key, value]] : [];
    }),
  );
  return Object.keys(consent).length > 0 ? consent : undefined;
}

/** The GA4 event of a message (name and params) and any user properties it sets. */
function ga4Event(message: Message, config: Ga4Config): { name: string; params: Record<string, unknown>; userProperties?: Record<string, { value: unknown }> } {
  const properties = propertiesOf(message);
  const name = typeof message.name === 'string' && message.name !== '' ? message.name : undefined;
  switch (message.type) {
    case 'track': {
      const event = trackEventName(message);
      // Events reference, recommended (ecommerce) events: the event spec's names map onto them.
      const ecommerce = ecommerceEvent(event, properties);
      if (ecommerce) return { name: ecommerce.name, params: limitParams({ ...ecommerce.params, ...customParams(ecommerce.rest) }) };
      return { name: checkEventName(ga4EventName(event), config, event), params: limitParams(customParams(properties)) };
    }
    case 'page': {
      // Events reference, page_view: page_location, page_title, page_referrer.
      const page = {
        page_location: firstOf(message, 'properties.url', 'context.page.url'),
        page_title: firstOf(message, 'properties.title', 'context.page.title') ?? name,
        page_referrer: firstOf(message, 'properties.referrer', 'context.page.referrer'),
      };
      const params = Object.fromEntries(
        Object.entries(page)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, paramValue(k, v)]),
      );
      return { name: 'page_view', params: limitParams({ ...params, ...customParams(without(properties, ['url', 'title', 'referrer'])) }) };
    }
    case 'screen':
      // screen_view (screen_name) is reserved for app streams ("Reserved names").
      return {
        name: checkEventName('screen_view', config, 'screen_view'),
        params: limitParams({ ...(name && { screen_name: paramValue('screen_name', name) }), ...customParams(properties) }),
      };
    case 'group': {
      // Events reference, join_group: group_id.
      const groupId = firstOf(message, 'groupId');
      if (groupId === undefined) throw instrumentationError('a group event needs a groupId');
      return { name: 'join_group', params: { group_id: paramValue('group_id', String(groupId)) } };
    }
    case 'identify': {
      // The body needs one event; "identify" (a custom name, not reserved) carries the user properties.
      const props = userProperties(traitsOf(message));
      if (Object.keys(props).length === 0) throw instrumentationError('an identify event for GA4 needs traits to send as user properties');
      return { name: 'identify', params: {}, userProperties: props };
    }
    case 'alias':
      throw instrumentationError('GA4 has no alias: users are linked by client_id and user_id on each event');
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by GA4`);
  }
}

export const ga4 = defineDestinationCode<typeof ga4Definition>({
  delivery: 'http',
  // "Limitations": up to 25 events per request and a post body under 130 kB; the events are measured, so the
  // rest of the body (ids, user properties) has room. Requests combine only where everything but the events is
  // the same: one client, one user_id, the same user properties. GA4 has no de-duplication key.
  batch: { maxEvents: 25, maxBytes: 125_000, lists: ['JSON.events'] },
  // "Send Measurement Protocol events" (developers.google.com/analytics/devguides/collection/protocol/ga4/
  // sending-events, read 2026-11-29): events "can be backdated up to 72 hours"; older ones are answered 2xx and
  // dropped. The use-cases page asks timestamp_micros "<= request time" (the hour's tolerance of age-window.ts covers the clocks).
  ageWindow: () => ({ vendor: 'GA4', maxAgeMs: 72 * HOUR_MS, maxAge: '72 hours' }),
  transform(message, config) {
    // Query parameters: firebase_app_id for app streams, measurement_id for web streams, and api_secret.
    const firebase = config.typesOfClient === 'firebase';
    const streamId = firebase ? config.firebaseAppId : config.measurementId;
    if (!streamId) throw configurationError(firebase ? 'firebaseAppId is required for firebase' : 'measurementId is required for gtag');
    // client_id (web) or app_instance_id (app): the integrations.GA4 override, else the anonymousId.
    const clientId = firstOf(message, firebase ? 'integrations.GA4.appInstanceId' : 'integrations.GA4.clientId', 'anonymousId');
    if (typeof clientId !== 'string' && typeof clientId !== 'number') {
      throw instrumentationError(
        `GA4 needs an anonymousId (or integrations.GA4.${firebase ? 'appInstanceId' : 'clientId'}) as ${firebase ? 'app_instance_id' : 'client_id'}`,
      );
    }
    const event = ga4Event(message, config);
    const { name, userProperties: props } = event;
    // The session's params first, so that the 25 kept ("Limitations") hold them; an identify is no activity.
    const params = message.type === 'identify' ? event.params : limitParams({ ...sessionParams(message, propertiesOf(message)), ...event.params });
    const userId = userIdOf(message);
    const time = eventTime(message);
    // timestamp_micros, unix microseconds, goes on the event (the reference: the request's time "can be overridden"
    // by the events'), so one client's events combine into one request. User properties take the request's
    // ("Send user properties": an entry's own, else the request's), so a request carrying them has it too.
    const micros = time && { timestamp_micros: time.getTime() * 1000 };
    const consent = consentOf(message);
    const body = {
      [firebase ? 'app_instance_id' : 'client_id']: String(clientId),
      ...(userId && { user_id: userId }),
      ...(consent && { consent }),
      ...(props && { ...micros, user_properties: props }),
      events: [{ name, params, ...micros }],
    };
    const path = config.debugMode ? '/debug/mp/collect' : '/mp/collect';
    return [
      postJson(`${trimBase(config.baseUrl ?? DEFAULT_BASE)}${path}`, body, {
        params: { [firebase ? 'firebase_app_id' : 'measurement_id']: streamId, api_secret: config.apiSecret },
        userId: message.anonymousId,
      }),
    ];
  },
});
