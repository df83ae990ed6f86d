import { deleteEachUser, deletionOutcome } from '../deletion';
import { normalisePhone } from '../ad-matching';
import { instrumentationError } from '../errors';
import { compact, eventTime, firstOf, idText, isRecord, numberOf, propertiesOf, textOf, trackEventName, traitsOf, trimBase, userIdOf } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type DeletionUser, type DestinationRequest, type Message, type RequestSender } from '../types';
import type { KlaviyoConfig, klaviyoDefinition } from './definition';

/**
 * Klaviyo: profiles through "Create or Update Profile" (POST /api/profile-import), track events through "Create
 * Event" (POST /api/events), one per request, profiles deleted through "Request Profile Deletion" (POST
 * /api/data-privacy-deletion-jobs). Docs: developers.klaviyo.com/en/reference (the OpenAPI documents of
 * github.com/klaviyo/openapi, openapi/stable/apis: create_or_update_profile, create_event,
 * request_profile_deletion), "API overview" (private key authentication, the revision header, JSON:API bodies).
 */

const HOST = 'https://a.klaviyo.com';
/** Every request names the API revision it was written for ("API versioning and deprecation policy"). */
const KLAVIYO_REVISION = '2026-07-15';

/** Private key authentication: `Authorization: Klaviyo-API-Key <key>`; JSON:API bodies; the revision header. */
const post = (config: KlaviyoConfig, path: string, json: Record<string, unknown>, userId?: unknown): DestinationRequest =>
  restRequest({
    method: 'POST',
    endpoint: `${trimBase(config.baseUrl ?? HOST)}${path}`,
    headers: {
      Authorization: `Klaviyo-API-Key ${config.privateApiKey}`,
      revision: KLAVIYO_REVISION,
      Accept: 'application/vnd.api+json',
      'Content-Type': 'application/vnd.api+json',
    },
    json,
    userId,
  });

/**
 * "phone_number" in E.164 only ("+", the country code, at most 15 digits): Klaviyo refuses the whole profile or
 * event over any other form. A number written with "+" or "00" is reduced to that form, a national one gets the
 * configured phoneCountryCode; one that still is not E.164 is left out, and the event goes by its other
 * identifiers (or is refused, naming the number, when it has none).
 */
function e164(value: unknown, config: KlaviyoConfig): string | undefined {
  const raw = textOf(value);
  if (raw === undefined || (!/^(\+|00)/.test(raw) && !config.phoneCountryCode)) return undefined;
  const phone = normalisePhone(raw, { phoneCountryCode: config.phoneCountryCode, phoneFormat: 'e164' });
  return /^\+[1-9]\d{6,14}$/.test(phone) ? phone : undefined;
}

/** The profile's identifiers: email, phone_number (E.164), external_id (the userId). */
function identifiers(message: Message, traits: Record<string, unknown>, config: KlaviyoConfig): Record<string, unknown> {
  return compact({ email: textOf(traits.email), phone_number: e164(traits.phone, config), external_id: userIdOf(message) });
}

/**
 * Why an event has no identifier Klaviyo takes: `base`, and that its phone is not E.164 where it has one (the
 * number itself is not repeated: error texts reach the failures list, alerts and logs).
 */
function noIdentifier(base: string, traits: Record<string, unknown>): Error {
  const why = textOf(traits.phone) === undefined ? '' : ' (its phone is no E.164 number: write it with + and its country code, or configure phoneCountryCode)';
  return instrumentationError(`${base}${why}`);
}

// Profile attributes the traits fill; every other trait is a custom profile property.
const PROFILE_TRAITS = new Set(['email', 'phone', 'userId', 'anonymousId', 'firstName', 'first_name', 'lastName', 'last_name']);
const MORE_PROFILE_TRAITS = ['company', 'title', 'avatar', 'address', 'locale'];

function location(traits: Record<string, unknown>, message: Message): Record<string, unknown> | undefined {
  const address = isRecord(traits.address) ? traits.address : {};
  const fields = compact({
    address1: address.street,
    city: address.city ?? traits.city,
    region: address.state ?? traits.state,
    zip: address.postalCode ?? address.postal_code,
    country: address.country ?? traits.country,
    ip: firstOf(message, 'context.ip'),
  });
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** "Create or Update Profile" attributes: identifiers, the named profile fields, custom properties for the rest. */
function profileAttributes(message: Message, config: KlaviyoConfig): Record<string, unknown> {
  const traits = traitsOf(message);
  const custom = Object.fromEntries(Object.entries(traits).filter(([key]) => !PROFILE_TRAITS.has(key) && !MORE_PROFILE_TRAITS.includes(key)));
  return compact({
    ...identifiers(message, traits, config),
    first_name: traits.firstName ?? traits.first_name,
    last_name: traits.lastName ?? traits.last_name,
    organization: textOf(traits.company),
    title: textOf(traits.title),
    image: textOf(traits.avatar),
    locale: textOf(traits.locale) ?? textOf(firstOf(message, 'context.locale')),
    location: location(traits, message),
    properties: Object.keys(custom).length > 0 ? custom : undefined,
  });
}

function identify(message: Message, config: KlaviyoConfig): DestinationRequest {
  const attributes = profileAttributes(message, config);
  if (!attributes.email && !attributes.phone_number && !attributes.external_id) {
    throw noIdentifier('Klaviyo needs an email, a phone or a userId (external_id) to identify a profile', traitsOf(message));
  }
  return post(config, '/api/profile-import', { data: { type: 'profile', attributes } }, message.anonymousId);
}

// "Create Event": the metric name must be under 128 characters.
const MAX_METRIC_NAME = 127;

/** The event's monetary value: revenue, else value, else total (Klaviyo's `value`, e.g. a purchase's amount). */
function valueOf(properties: Record<string, unknown>): number | undefined {
  return numberOf(firstOf(properties, 'revenue', 'value', 'total'));
}

/**
 * "Create Event": the metric by name, the profile by its identifiers (anonymous_id for an event without any),
 * the properties, the time, `value` for revenue and `unique_id`, the messageId: Klaviyo records only the first
 * event with a unique_id for the same profile and metric.
 */
function track(message: Message, config: KlaviyoConfig): DestinationRequest {
  const name = trackEventName(message);
  if (name.length > MAX_METRIC_NAME) throw instrumentationError(`Klaviyo metric names are under 128 characters; "${name.slice(0, 40)}..." has ${name.length}`);
  const profile = compact({ ...identifiers(message, traitsOf(message), config), anonymous_id: idText(message.anonymousId) });
  if (Object.keys(profile).length === 0)
    throw noIdentifier('Klaviyo needs an email, a phone, a userId or an anonymousId on the track event', traitsOf(message));
  const properties = propertiesOf(message);
  const value = valueOf(properties);
  const currency = textOf(properties.currency);
  const time = eventTime(message);
  const messageId = idText(message.messageId);
  const attributes = {
    properties,
    ...(time && { time: time.toISOString() }),
    ...(value !== undefined && { value }),
    ...(value !== undefined && currency && { value_currency: currency.toUpperCase() }),
    ...(messageId && { unique_id: messageId }),
    metric: { data: { type: 'metric', attributes: { name } } },
    profile: { data: { type: 'profile', attributes: profile } },
  };
  return post(config, '/api/events', { data: { type: 'event', attributes } }, message.anonymousId);
}

function transformMessage(message: Message, config: KlaviyoConfig): DestinationRequest {
  switch (message.type) {
    case 'identify':
      return identify(message, config);
    case 'track':
      return track(message, config);
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Klaviyo (profiles come from identify, events from track)`);
  }
}

/**
 * "Request Profile Deletion": one job per profile, named by one identifier (email, else phone_number); Klaviyo's
 * own profile id is not known here.
 */
const deleteProfiles = (users: DeletionUser[], config: KlaviyoConfig, send: RequestSender) =>
  deleteEachUser(users, async (user) => {
    const identifier = user.email ? { email: user.email } : user.phone ? { phone_number: user.phone } : undefined;
    if (!identifier) return { status: 'failed', retryable: false, error: `Klaviyo deletes profiles by email or phone; user ${user.userId} has neither` };
    const job = { type: 'data-privacy-deletion-job', attributes: { profile: { data: { type: 'profile', attributes: identifier } } } };
    return deletionOutcome('Klaviyo', await send(post(config, '/api/data-privacy-deletion-jobs', { data: job })));
  });

export const klaviyo = defineDestinationCode<typeof klaviyoDefinition>({
  delivery: 'http',
  // No batch: the bulk jobs (event-bulk-create-jobs) group events under their profile and answer asynchronously,
  // so a chunk's outcome is not known when it is sent; one request per event, unique_id making resends harmless.
  transform: (message, config) => [transformMessage(message, config)],
  deleteUsers: (users, config, io) => deleteProfiles(users, config, io.send),
});
