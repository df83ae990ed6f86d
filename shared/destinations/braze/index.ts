import { deleteInSlices } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, compact, eventTime, firstOf, isRecord, propertiesOf, trackEventName, traitsOf, trimBase, userIdOf, viewEvent } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DestinationRequest, type Message } from '../types';
import type { BrazeConfig, brazeDefinition } from './definition';
import { INSTANCES } from './endpoints';

/**
 * Braze: profiles, custom events and purchases through the REST API's /users/track, alias through /users/merge,
 * user deletion through /users/delete. Docs: braze.com/docs/api/endpoints/user_data ("POST: Track users",
 * "POST: Merge users", "POST: Delete users"), braze.com/docs/api/objects_filters ("User attributes object",
 * "Event object", "Purchase object").
 */

const baseOf = (config: BrazeConfig) => trimBase(config.restEndpoint ?? INSTANCES[config.dataCenter!]);

/** Every request body is JSON with the REST API key as a bearer token ("Request body" of each endpoint). */
const post = (config: BrazeConfig, path: string, json: Record<string, unknown>, userId?: unknown): DestinationRequest =>
  postJson(`${baseOf(config)}${path}`, json, { headers: { Authorization: `Bearer ${config.restApiKey}` }, userId });

/** The alias label anonymous users get; their alias name is the anonymousId. */
const ANONYMOUS_ALIAS_LABEL = 'weir_anon_id';

/**
 * Who an attributes, event or purchase object is about: external_id, else a user alias. Braze only creates an
 * alias-only profile through /users/track when `_update_existing_only` is false (Event object, "Update existing
 * profiles only").
 */
function userRef(message: Message): Record<string, unknown> {
  const userId = userIdOf(message);
  if (userId) return { external_id: userId };
  const anonymousId = anonymousIdOf(message);
  if (anonymousId) return { user_alias: anonymousAlias(anonymousId), _update_existing_only: false };
  throw instrumentationError(`Braze needs a userId (external_id) or an anonymousId (user alias) on the ${String(message.type)} event`);
}

// User attributes object, "Braze user profile fields": gender is one of M, F, O, N, P.
const GENDERS: Record<string, string> = {
  m: 'M',
  male: 'M',
  f: 'F',
  female: 'F',
  o: 'O',
  other: 'O',
  n: 'N',
  'not applicable': 'N',
  p: 'P',
  'prefer not to say': 'P',
};

/** dob is "YYYY-MM-DD" (Braze user profile fields). */
function dateOfBirth(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().slice(0, 10);
}

/** Traits the profile fields take; every other trait stays a custom attribute. */
const PROFILE_TRAITS = new Set([
  'email',
  'firstName',
  'first_name',
  'lastName',
  'last_name',
  'phone',
  'gender',
  'birthday',
  'dob',
  'address',
  'country',
  'city',
  'avatar',
  'language',
  'userId',
  'anonymousId',
]);

/** User attributes object: Braze user profile fields from the traits, custom attributes for the rest. */
function attributesOf(traits: Record<string, unknown>): Record<string, unknown> {
  const custom = Object.fromEntries(Object.entries(traits).filter(([key]) => !PROFILE_TRAITS.has(key)));
  const gender = typeof traits.gender === 'string' ? (GENDERS[traits.gender.trim().toLowerCase()] ?? traits.gender) : undefined;
  const address = isRecord(traits.address) ? traits.address : {};
  return {
    ...custom,
    ...compact({
      email: traits.email,
      first_name: traits.firstName ?? traits.first_name,
      last_name: traits.lastName ?? traits.last_name,
      phone: traits.phone,
      gender,
      dob: dateOfBirth(traits.birthday ?? traits.dob),
      country: address.country ?? traits.country,
      home_city: address.city ?? traits.city,
      image_url: traits.avatar,
      language: traits.language,
    }),
  };
}

/** Event properties: names are non-empty, at most 255 characters, without a leading "$" (Event object). */
const eventProperties = (properties: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(properties).filter(([key]) => key !== '' && key.length <= 255 && !key.startsWith('$')));

// Event object: "time" is required; Braze itself takes the present for a time in the future, and an event without
// any time (the pipeline always sets receivedAt) gets the present too.
const timeOf = (message: Message) => (eventTime(message) ?? new Date()).toISOString();

const appId = (config: BrazeConfig) => (config.appKey ? { app_id: config.appKey } : {});

function customEvent(message: Message, config: BrazeConfig, name: string, properties: Record<string, unknown>) {
  return { ...userRef(message), ...appId(config), name, time: timeOf(message), properties: eventProperties(properties) };
}

/** Purchase object: one per product; product_id, currency, price and time are required. */
function purchases(message: Message, config: BrazeConfig, products: unknown[]) {
  const properties = propertiesOf(message);
  const currency = typeof properties.currency === 'string' && properties.currency !== '' ? properties.currency.toUpperCase() : 'USD';
  return products.map((item, i) => {
    const product = isRecord(item) ? item : {};
    const productId = firstOf(product, 'product_id', 'sku', 'name', 'id');
    const price = Number(product.price);
    if (productId === undefined || product.price === undefined || product.price === null || !Number.isFinite(price)) {
      throw instrumentationError(`Order Completed product ${i} needs a product_id (or sku or name) and a numeric price for a Braze purchase`);
    }
    const { product_id: _id, sku: _sku, price: _price, quantity, currency: _currency, ...rest } = product;
    return {
      ...userRef(message),
      ...appId(config),
      product_id: String(productId),
      currency,
      price,
      ...(typeof quantity === 'number' && { quantity }),
      time: timeOf(message),
      properties: eventProperties({ ...rest, ...(properties.order_id !== undefined && { order_id: properties.order_id }) }),
    };
  });
}

/** The user alias an anonymous user's events went to (userRef). */
const anonymousAlias = (anonymousId: string) => ({ alias_name: anonymousId, alias_label: ANONYMOUS_ALIAS_LABEL });

/**
 * "POST: Identify users" (braze.com/docs/api/endpoints/user_data/post_user_identify, read 2026-11-29): an identify
 * of a user with both ids first identifies the alias-only profile their anonymous events made with the external
 * id, which "combines" it into the identified profile ("merges the following list of fields found exclusively on
 * the anonymous user", events and purchases among them) and removes it; then the attributes go to the external id.
 */
function identify(message: Message, config: BrazeConfig): DestinationRequest[] {
  const attributes = post(config, '/users/track', { attributes: [{ ...attributesOf(traitsOf(message)), ...userRef(message) }] }, message.anonymousId);
  const userId = userIdOf(message);
  const anonymousId = anonymousIdOf(message);
  if (!userId || !anonymousId || userId === anonymousId) return [attributes];
  const aliases = [{ external_id: userId, user_alias: anonymousAlias(anonymousId) }];
  return [post(config, '/users/identify', { aliases_to_identify: aliases, merge_behavior: 'merge' }, message.anonymousId), attributes];
}

function transformMessage(message: Message, config: BrazeConfig): DestinationRequest {
  const anonymousId = message.anonymousId;
  switch (message.type) {
    case 'track': {
      const event = trackEventName(message);
      const products = propertiesOf(message).products;
      // Purchase object: an order's products are purchases, the way Braze counts revenue.
      if (event === 'Order Completed' && Array.isArray(products) && products.length > 0) {
        return post(config, '/users/track', { purchases: purchases(message, config, products) }, anonymousId);
      }
      // "POST: Track users", events: one Event object named after the track.
      return post(config, '/users/track', { events: [customEvent(message, config, event, propertiesOf(message))] }, anonymousId);
    }
    case 'page':
    case 'screen': {
      // Event object: views become custom events, "Viewed <name> Page|Screen", with the name kept as a property.
      const { event, properties } = viewEvent(message);
      return post(config, '/users/track', { events: [customEvent(message, config, event, properties)] }, anonymousId);
    }
    case 'group': {
      const groupId = firstOf(message, 'groupId');
      if (groupId === undefined) throw instrumentationError('a group event needs a groupId');
      // User attributes object, "Arrays": the group joins the array custom attribute group_ids ({"add": [...]}).
      return post(config, '/users/track', { attributes: [{ group_ids: { add: [String(groupId)] }, ...userRef(message) }] }, anonymousId);
    }
    case 'alias': {
      const userId = userIdOf(message);
      const previousId = firstOf(message, 'previousId');
      if (!userId || (typeof previousId !== 'string' && typeof previousId !== 'number')) {
        throw instrumentationError('a Braze alias needs a userId and a previousId (users merged by external_id)');
      }
      // "POST: Merge users": the previous user is merged into the new one. A previousId that is the event's
      // anonymousId names the alias-only profile its anonymous events made (userRef), any other an external id.
      const previous = String(previousId);
      const toMerge = previous === anonymousIdOf(message) ? { user_alias: anonymousAlias(previous) } : { external_id: previous };
      return post(config, '/users/merge', { merge_updates: [{ identifier_to_merge: toMerge, identifier_to_keep: { external_id: userId } }] }, anonymousId);
    }
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Braze`);
  }
}

/**
 * "API errors and responses" (braze.com/docs/api/errors, read 2026-11-29): a message "successful but has
 * non-fatal errors" answers 2xx with `{"message": "success", "errors": [...]}`, and "any messages that were not
 * affected by an error in the errors array will still be delivered". /users/track names each refused object by
 * `input_array` (attributes, events, purchases) and `index` in it, with `type` saying why: those events are
 * refused, the others delivered.
 */
function brazeVerdicts(answer: { status: number; response: unknown }, count: number, request?: DestinationRequest, items?: DestinationRequest[]) {
  const errors = isRecord(answer.response) && Array.isArray(answer.response.errors) ? answer.response.errors : [];
  // Only /users/track names objects; an identify's merge is best done (an alias Braze never saw has nothing to merge).
  if (answer.status >= 300 || !items || !request?.endpoint.endsWith('/users/track')) return undefined;
  const verdicts: ChunkEventVerdict[] = Array.from({ length: count }, () => ({ kind: 'delivered' }));
  for (const e of errors) {
    // The item's event: the index-th of the one-event requests holding an item of that list.
    const holder = isRecord(e) ? items.filter((r) => Array.isArray(r.body.JSON[String(e.input_array)]))[Number(e.index)] : undefined;
    if (holder) verdicts[items.indexOf(holder)] = { kind: 'refused', error: `Braze refused it: ${String(e!.type)}` };
  }
  return verdicts;
}

/** "POST: Delete users": up to 50 external_ids per request. */
const BRAZE_DELETE_BATCH = 50;

export const braze = defineDestinationCode<typeof brazeDefinition>({
  delivery: 'http',
  // /users/track: up to 75 attributes, 75 events and 75 purchases per request (kept to 75 items in all);
  // /users/identify: up to 50 aliases.
  batch: {
    maxEvents: (request) => (request.endpoint.endsWith('/users/identify') ? 50 : 75),
    maxBytes: 1_000_000,
    lists: ['JSON.attributes', 'JSON.events', 'JSON.purchases', 'JSON.aliases_to_identify'],
    verdicts: brazeVerdicts,
  },
  transform: (message, config) => (message.type === 'identify' ? identify(message, config) : [transformMessage(message, config)]),
  async deleteUsers(users, config, io) {
    return deleteInSlices('Braze', users, BRAZE_DELETE_BATCH, io, (slice) => post(config, '/users/delete', { external_ids: slice.map((u) => u.userId) }));
  },
});
