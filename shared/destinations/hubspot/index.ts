import { deleteEachUser, deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { eventTime, firstOf, idText, isRecord, propertiesOf, textOf, trackEventName, traitsOf, trimBase } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DeletionUser, type DestinationRequest, type Message, type RequestSender } from '../types';
import type { HubspotConfig, hubspotDefinition } from './definition';

/**
 * HubSpot: contacts created or updated by email through the CRM v3 batch upsert, track events as custom event
 * occurrences through the batch send of the Events API, contacts deleted through the GDPR delete.
 * Docs: developers.hubspot.com/docs/api-reference/legacy/crm/objects/contacts ("Create or update a batch of
 * contacts by unique property values", "GDPR DELETE"), .../events/send-event-data ("Send custom event
 * occurrences", "Send a batch of event occurrences"), "Error handling" (multi-status errors), "Authentication"
 * (private app access tokens as bearer tokens).
 */

const HOST = 'https://api.hubapi.com';

const baseOf = (config: HubspotConfig) => trimBase(config.baseUrl ?? HOST);

const post = (config: HubspotConfig, path: string, json: Record<string, unknown>, userId?: unknown): DestinationRequest =>
  postJson(`${baseOf(config)}${path}`, json, { headers: { Authorization: `Bearer ${config.accessToken}` }, userId });

const UPSERT_PATH = '/crm/v3/objects/contacts/batch/upsert';
const EVENTS_PATH = '/events/v3/send/batch';

/** Contact property values are text: numbers and booleans as their text, dates as ISO 8601, objects left out. */
function propertyValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

// Default contact properties ("Contacts" guide: email, firstname, lastname, phone, company, website, jobtitle, address ...).
const DEFAULT_PROPERTIES: [string, string[]][] = [
  ['firstname', ['firstName', 'first_name']],
  ['lastname', ['lastName', 'last_name']],
  ['phone', ['phone']],
  ['company', ['company']],
  ['website', ['website']],
  ['jobtitle', ['title', 'jobTitle']],
  ['address', ['address.street']],
  ['city', ['address.city', 'city']],
  ['state', ['address.state', 'state']],
  ['zip', ['address.postalCode', 'address.postal_code', 'zip']],
  ['country', ['address.country', 'country']],
];

const emailOf = (message: Message) => {
  const email = firstOf(traitsOf(message), 'email') ?? firstOf(message, 'properties.email');
  return textOf(email);
};

/**
 * The contact's properties: the default ones from the traits, and the traits contactProperties names. Other
 * traits are not sent: HubSpot refuses a property its account does not have, and with it the whole batch.
 */
function contactProperties(traits: Record<string, unknown>, config: HubspotConfig, email: string): Record<string, string> {
  const properties: Record<string, string> = { email };
  for (const [property, paths] of DEFAULT_PROPERTIES) {
    const value = propertyValue(firstOf(traits, ...paths));
    if (value !== undefined) properties[property] = value;
  }
  for (const { from, to } of config.contactProperties ?? []) {
    const value = propertyValue(firstOf(traits, from));
    if (value !== undefined && to !== '') properties[to] = value;
  }
  return properties;
}

/** Batch upsert input: the contact named by its email (idProperty email); objectWriteTraceId names it in errors. */
function identify(message: Message, config: HubspotConfig): DestinationRequest {
  const email = emailOf(message);
  if (!email) throw instrumentationError('HubSpot identifies contacts by email: the identify event needs traits.email');
  const messageId = idText(message.messageId);
  const input = {
    id: email,
    idProperty: 'email',
    properties: contactProperties(traitsOf(message), config, email),
    ...(messageId && { objectWriteTraceId: messageId }),
  };
  return post(config, UPSERT_PATH, { inputs: [input] }, message.anonymousId);
}

/** A custom event's internal name: lower-case letters, digits and underscores ("Define the custom event"). */
const internalName = (event: string) =>
  event
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');

function eventNameOf(event: string, config: HubspotConfig): string {
  const mapped = config.eventNames?.find((pair) => pair.from === event)?.to;
  if (mapped) return mapped;
  if (/^pe\d+_/.test(event)) return event;
  if (config.portalId && internalName(event) !== '') return `pe${config.portalId}_${internalName(event)}`;
  throw instrumentationError(`HubSpot needs the fully qualified name of the custom event "${event}": map it in eventNames or set portalId`);
}

// "New property limits for the Custom Behavioural Events API" (developers.hubspot.com/changelog, read 2026-11-29):
// at most 50 properties per occurrence; internal names of at most 50 characters, starting with a letter, of
// lowercase a-z, 0-9 and "_"; values of at most 50 characters, 200 for URL and referrer properties. Over any of
// them, "the request will fail": one occurrence would refuse its whole batch of 100.
const MAX_EVENT_PROPERTIES = 50;
const MAX_NAME = 50;
const MAX_VALUE = 50;
const MAX_URL_VALUE = 200;

/** A property's internal name as the limits allow it: lowercase, [a-z0-9_] only, from its first letter, 50 at most. */
const propertyName = (key: string) =>
  key
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, MAX_NAME);

/**
 * Event properties are text (the API's property map is name → string); nested objects are left out. Names are
 * made internal names (the first of two that become the same is kept), values cut to their limit, as HubSpot's
 * own JavaScript API does, rather than have the whole batch refused.
 */
function eventProperties(properties: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(properties)) {
    const text = propertyValue(value);
    const name = propertyName(key);
    if (text === undefined || name === '' || name in out) continue;
    out[name] = text.slice(0, /(^|_)(url|referrer)$/.test(name) ? MAX_URL_VALUE : MAX_VALUE);
  }
  if (Object.keys(out).length > MAX_EVENT_PROPERTIES) {
    throw instrumentationError(`HubSpot takes at most ${MAX_EVENT_PROPERTIES} properties per event occurrence; the event has ${Object.keys(out).length}`);
  }
  return out;
}

/**
 * "Send custom event occurrences": eventName (pe<HubID>_<name>), the contact by email, occurredAt, properties, and
 * uuid, the messageId: HubSpot accepts the first occurrence with a uuid and rejects the others for a year.
 */
function track(message: Message, config: HubspotConfig): DestinationRequest {
  const event = trackEventName(message);
  const email = emailOf(message);
  if (!email) throw instrumentationError('HubSpot ties an event occurrence to a contact by email: the track event needs context.traits.email');
  const time = eventTime(message);
  const messageId = idText(message.messageId);
  const occurrence = {
    eventName: eventNameOf(event, config),
    email,
    ...(time && { occurredAt: time.toISOString() }),
    ...(messageId && { uuid: messageId }),
    properties: eventProperties(propertiesOf(message)),
  };
  return post(config, EVENTS_PATH, { inputs: [occurrence] }, message.anonymousId);
}

function transformMessage(message: Message, config: HubspotConfig): DestinationRequest {
  switch (message.type) {
    case 'identify':
      return identify(message, config);
    case 'track':
      return track(message, config);
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by HubSpot (contacts come from identify, custom events from track)`);
  }
}

/**
 * Multi-status errors ("Error handling"): a 207 lists errors whose context names the inputs by objectWriteTraceId
 * (the messageId); those are refused, the others written. Any other answer is about the request as a whole.
 */
function hubspotVerdicts(answer: { status: number; response: unknown }, count: number, traceIds: (string | undefined)[]): ChunkEventVerdict[] | undefined {
  const errors = isRecord(answer.response) && Array.isArray(answer.response.errors) ? answer.response.errors : undefined;
  if (answer.status !== 207 || !errors) return undefined;
  const refused = new Map<string, string>();
  for (const error of errors) {
    if (!isRecord(error) || !isRecord(error.context)) continue;
    const ids = error.context.objectWriteTraceId;
    for (const id of Array.isArray(ids) ? ids : []) refused.set(String(id), typeof error.message === 'string' ? error.message : 'refused');
  }
  if (refused.size === 0) return undefined;
  return Array.from({ length: count }, (_, i) => {
    const id = traceIds[i];
    return id !== undefined && refused.has(id) ? { kind: 'refused', error: `HubSpot refused the contact: ${refused.get(id)!}` } : { kind: 'delivered' };
  });
}

const inputsOf = (request: DestinationRequest) => (Array.isArray(request.body.JSON.inputs) ? (request.body.JSON.inputs as unknown[]) : []);
const traceIdOf = (input: unknown) => (isRecord(input) ? idText(input.objectWriteTraceId) : undefined);

/** "GDPR DELETE": one contact per request, by email (idProperty email); HubSpot blocks an unknown address from then on. */
const deleteContacts = (users: DeletionUser[], config: HubspotConfig, send: RequestSender) =>
  deleteEachUser(users, async (user) => {
    if (!user.email) return { status: 'failed', retryable: false, error: `HubSpot deletes contacts by email; user ${user.userId} has none` };
    const request = post(config, '/crm/v3/objects/contacts/gdpr-delete', { objectId: user.email, idProperty: 'email' });
    return deletionOutcome('HubSpot', await send(request));
  });

export const hubspot = defineDestinationCode<typeof hubspotDefinition>({
  delivery: 'http',
  // CRM batch endpoints take up to 100 inputs; the same bound is kept for event occurrences, whose batch page
  // names none. A contact is upserted once per request: HubSpot refuses a batch naming one record twice.
  batch: {
    maxEvents: 100,
    maxBytes: 1_000_000,
    lists: ['JSON.inputs'],
    verdicts: (answer, count, request) => hubspotVerdicts(answer, count, request ? inputsOf(request).map(traceIdOf) : []),
    itemKey: (request) => {
      const [input] = inputsOf(request);
      return request.endpoint.endsWith(UPSERT_PATH) && isRecord(input) ? `contact:${String(input.id).toLowerCase()}` : undefined;
    },
  },
  transform: (message, config) => [transformMessage(message, config)],
  deleteUsers: (users, config, io) => deleteContacts(users, config, io.send),
});
