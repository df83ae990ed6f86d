import { deleteEachUser, deletionOutcome } from '../deletion';
import { DestinationError, instrumentationError } from '../errors';
import { sendRequest } from '../http-client';
import { compact, eventTime, firstOf, isRecord, propertiesOf, textOf, trackEventName, traitsOf, trimBase, userIdOf } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type DeletionUser, type DeliveryResult, type DestinationRequest, type Message, type RequestSender } from '../types';
import type { IntercomConfig, intercomDefinition } from './definition';

/**
 * Intercom, REST API version 2.11: users through "Create a contact" (POST /contacts) and, where Intercom answers
 * that the contact exists, "Update a contact" (PUT /contacts/{id}); track events through "Submit a data event"
 * (POST /events); groups through "Create or update a company" (POST /companies); users deleted through "Search
 * contacts" and "Delete a contact". Docs: developers.intercom.com/docs/references/2.11/rest-api/api.intercom.io
 * (Contacts, Data Events, Companies), "Event de-duplication", "Regional hosting" (US, EU and AU hosts).
 */

const HOSTS = { US: 'https://api.intercom.io', EU: 'https://api.eu.intercom.io', AU: 'https://api.au.intercom.io' } as const;
const INTERCOM_VERSION = '2.11';

const request = (config: IntercomConfig, method: DestinationRequest['method'], path: string, json?: Record<string, unknown>, userId?: unknown) =>
  restRequest({
    method,
    endpoint: `${trimBase(config.baseUrl ?? HOSTS[config.region ?? 'US'])}${path}`,
    headers: {
      Authorization: `Bearer ${config.accessToken}`,
      'Intercom-Version': INTERCOM_VERSION,
      Accept: 'application/json',
      ...(json && { 'Content-Type': 'application/json' }),
    },
    json,
    userId,
  });

/** Intercom's timestamps are unix seconds. */
function unixSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && !(value instanceof Date)) return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Custom attributes are flat: text, numbers and booleans; nested objects and lists are left out. */
const flatValues = (values: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(values).filter(([, v]) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))),
  );

const CONTACT_TRAITS = new Set([
  'email',
  'phone',
  'name',
  'firstName',
  'first_name',
  'lastName',
  'last_name',
  'avatar',
  'createdAt',
  'created_at',
  'userId',
  'anonymousId',
]);

/** "Create a contact": a user, by external_id (the userId) and/or email, its traits as contact fields and custom attributes. */
function contactBody(message: Message): Record<string, unknown> {
  const traits = traitsOf(message);
  const userId = userIdOf(message);
  const email = textOf(traits.email);
  if (!userId && !email) throw instrumentationError('Intercom needs a userId (external_id) or traits.email to identify a contact');
  const fullName = [textOf(traits.firstName ?? traits.first_name), textOf(traits.lastName ?? traits.last_name)].filter(Boolean).join(' ');
  const custom = flatValues(Object.fromEntries(Object.entries(traits).filter(([key]) => !CONTACT_TRAITS.has(key))));
  return compact({
    role: 'user',
    external_id: userId,
    email,
    phone: textOf(traits.phone),
    name: textOf(traits.name) ?? (fullName || undefined),
    avatar: textOf(traits.avatar),
    signed_up_at: unixSeconds(traits.createdAt ?? traits.created_at),
    custom_attributes: Object.keys(custom).length > 0 ? custom : undefined,
  });
}

// "Submit a data event": at most 10 metadata keys per event, strings up to 255 characters, no nested JSON; key
// names without "." or "$" ("Event Metadata Types").
const MAX_METADATA_KEYS = 10;
const MAX_METADATA_STRING = 255;

/** A metadata value Intercom takes: text, a number, a boolean, a rich link {url, value} or a monetary amount {amount, currency}. */
function metadataValue(value: unknown): unknown {
  if (typeof value === 'string') return value.slice(0, MAX_METADATA_STRING);
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value).sort().join(',');
  return keys === 'url,value' || keys === 'amount,currency' ? value : undefined;
}

/**
 * The event's properties Intercom can take as metadata (see metadataValue), the first 10 of them in the event's
 * order; the rest are not sent (Intercom would refuse the event).
 */
export function metadataOf(properties: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(properties).flatMap(([key, value]): [string, unknown][] => {
    const kept = /[.$]/.test(key) ? undefined : metadataValue(value);
    return kept === undefined ? [] : [[key, kept]];
  });
  return Object.fromEntries(entries.slice(0, MAX_METADATA_KEYS));
}

/**
 * An order's revenue as Intercom's monetary amount, `price: {amount (in cents), currency}`, first among the
 * metadata; revenue and currency themselves are not sent again.
 */
function withPrice(properties: Record<string, unknown>): Record<string, unknown> {
  const { revenue, currency, ...rest } = properties;
  const amount = typeof revenue === 'string' ? Number(revenue) : revenue;
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return properties;
  return { price: { amount: Math.round(amount * 100), currency: (textOf(currency) ?? 'usd').toLowerCase() }, ...rest };
}

/**
 * "Submit a data event": event_name, created_at (unix seconds), the user by user_id (the userId), else email, and
 * metadata. Intercom drops an event it already has (same user, name, created_at and metadata: "Event
 * de-duplication"), so a resent event is harmless.
 */
function eventBody(message: Message): Record<string, unknown> {
  const name = trackEventName(message);
  const userId = userIdOf(message);
  const email = textOf(traitsOf(message).email);
  if (!userId && !email) throw instrumentationError('Intercom needs a userId (user_id) or context.traits.email on the track event');
  const metadata = metadataOf(withPrice(propertiesOf(message)));
  return {
    event_name: name,
    created_at: unixSeconds(eventTime(message) ?? new Date()),
    ...(userId ? { user_id: userId } : { email }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
}

/** "Create or update a company": by company_id (the groupId), its traits as company fields and custom attributes. */
function companyBody(message: Message): Record<string, unknown> {
  const groupId = firstOf(message, 'groupId');
  if (groupId === undefined) throw instrumentationError('a group event needs a groupId');
  const traits = isRecord(message.traits) ? message.traits : {};
  const { name, plan, size, employees, website, industry, monthlySpend, monthly_spend, createdAt, created_at, ...rest } = traits;
  const custom = flatValues(rest);
  return compact({
    company_id: String(groupId),
    name: textOf(name),
    plan: textOf(plan),
    size: typeof (size ?? employees) === 'number' ? (size ?? employees) : undefined,
    website: textOf(website),
    industry: textOf(industry),
    monthly_spend: typeof (monthlySpend ?? monthly_spend) === 'number' ? (monthlySpend ?? monthly_spend) : undefined,
    remote_created_at: unixSeconds(createdAt ?? created_at),
    custom_attributes: Object.keys(custom).length > 0 ? custom : undefined,
  });
}

function transformMessage(message: Message, config: IntercomConfig): DestinationRequest {
  switch (message.type) {
    case 'identify':
      return request(config, 'POST', '/contacts', contactBody(message), message.anonymousId);
    case 'track':
      return request(config, 'POST', '/events', eventBody(message), message.anonymousId);
    case 'group':
      return request(config, 'POST', '/companies', companyBody(message), message.anonymousId);
    default:
      throw instrumentationError(
        `message type ${String(message.type)} is not supported by Intercom (contacts come from identify, data events from track, companies from group)`,
      );
  }
}

/** The id Intercom names in a 409 to "Create a contact": "A contact matching those details already exists with id=...". */
function existingContactId(result: DeliveryResult): string | undefined {
  if (result.status !== 409 || !isRecord(result.response) || !Array.isArray(result.response.errors)) return undefined;
  for (const error of result.response.errors) {
    const match = isRecord(error) && typeof error.message === 'string' ? /id=([A-Za-z0-9]+)/.exec(error.message) : null;
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Live delivery: the request the transform builds; a contact Intercom already has (409 naming its id) is updated
 * with the same fields (PUT /contacts/{id}), which makes identify a create-or-update.
 */
async function deliver(message: Message, config: IntercomConfig, send: RequestSender): Promise<DeliveryResult> {
  let built: DestinationRequest;
  try {
    built = transformMessage(message, config);
  } catch (error) {
    if (!(error instanceof DestinationError)) throw error;
    return { status: 400, response: '', error: error.message, retryable: false };
  }
  const result = await send(built);
  const id = built.endpoint.endsWith('/contacts') ? existingContactId(result) : undefined;
  return id ? send(request(config, 'PUT', `/contacts/${encodeURIComponent(id)}`, built.body.JSON, message.anonymousId)) : result;
}

/** "Search contacts" by external_id: the Intercom ids of the user's contacts (an answer that lists none: none). */
async function contactIds(user: DeletionUser, config: IntercomConfig, send: RequestSender): Promise<{ ids: string[] } | { result: DeliveryResult }> {
  const query = { query: { field: 'external_id', operator: '=', value: user.userId } };
  const result = await send(request(config, 'POST', '/contacts/search', query));
  if (result.status < 200 || result.status >= 300) return { result };
  const data = isRecord(result.response) && Array.isArray(result.response.data) ? result.response.data : [];
  return { ids: data.flatMap((contact) => (isRecord(contact) && typeof contact.id === 'string' ? [contact.id] : [])) };
}

/** Each user's contacts found by external_id and deleted ("Delete a contact"). */
const deleteContacts = (users: DeletionUser[], config: IntercomConfig, send: RequestSender) =>
  deleteEachUser(users, async (user) => {
    const found = await contactIds(user, config, send);
    const results = 'result' in found ? [found.result] : [];
    for (const id of 'ids' in found ? found.ids : []) results.push(await send(request(config, 'DELETE', `/contacts/${encodeURIComponent(id)}`)));
    return results.map((result) => deletionOutcome('Intercom', result));
  });

export const intercom = defineDestinationCode<typeof intercomDefinition>({
  delivery: 'http',
  // Intercom's REST API 2.x has no batch endpoint for contacts or data events: one request per event.
  transform: (message, config) => [transformMessage(message, config)],
  deliver: (message, config) => deliver(message, config, (r) => sendRequest(r)),
  deleteUsers: (users, config, io) => deleteContacts(users, config, io.send),
});
