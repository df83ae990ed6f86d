import { createHash } from 'node:crypto';
import { DAY_MS } from '../age-window';
import { deleteInSlices } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, compact, eventTime, firstOf, idText, isRecord, propertiesOf, traitsOf, trimBase, userIdOf, viewEvent } from '../message';
import { postJson, restRequest } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DestinationRequest, type Message } from '../types';
import type { MixpanelConfig, mixpanelDefinition } from './definition';

/**
 * Mixpanel: events through the Ingestion API (/import with the project secret, else /track), user profiles
 * through /engage, group profiles through /groups, user deletion through the GDPR API v3.
 * Docs: docs.mixpanel.com/reference (Ingestion API: Import Events, Track Events, User Profiles, Group Profiles,
 * Identities; GDPR API: Create a Deletion Task).
 */
const HOSTS = {
  // Ingestion API servers are api / api-eu / api-in; the GDPR API is served by the app hosts.
  us: { api: 'https://api.mixpanel.com', app: 'https://mixpanel.com' },
  eu: { api: 'https://api-eu.mixpanel.com', app: 'https://eu.mixpanel.com' },
  in: { api: 'https://api-in.mixpanel.com', app: 'https://in.mixpanel.com' },
} as const;

const hosts = (config: MixpanelConfig) =>
  config.baseUrl ? { api: trimBase(config.baseUrl), app: trimBase(config.baseUrl) } : HOSTS[config.dataResidency ?? 'us'];

const JSON_HEADERS = { 'Content-Type': 'application/json' };

function idsOf(message: Message) {
  const userId = userIdOf(message);
  const anonymousId = anonymousIdOf(message);
  const distinctId = userId ?? anonymousId;
  if (!distinctId) throw instrumentationError(`Mixpanel needs a userId or an anonymousId on the ${String(message.type)} event (distinct_id)`);
  return { userId, anonymousId, distinctId };
}

/**
 * Import Events, "properties.$insert_id": at most 36 letters, digits or "-". A messageId of another form is
 * replaced by the first 36 characters of a hash, the docs' own advice for events without a usable id.
 */
function insertId(message: Message, ...parts: unknown[]): string {
  const id = typeof message.messageId === 'string' ? message.messageId : '';
  if (/^[A-Za-z0-9-]{1,36}$/.test(id)) return id;
  return createHash('sha256')
    .update([id, ...parts].map(String).join('|'))
    .digest('hex')
    .slice(0, 36);
}

/** Default Properties (docs "Default Properties") from the event's context; `ip` drives GeoIP (Import Events). */
const contextProperties = (message: Message) =>
  compact({
    ip: firstOf(message, 'context.ip', 'request_ip'),
    $os: firstOf(message, 'context.os.name'),
    $current_url: firstOf(message, 'context.page.url'),
    $referrer: firstOf(message, 'context.page.referrer'),
  });

/** One event object: properties carry token, distinct_id, time (ms) and $insert_id (Import/Track Events). */
function mixpanelEvent(message: Message, config: MixpanelConfig, name: string, properties: Record<string, unknown>) {
  const { userId, anonymousId, distinctId } = idsOf(message);
  const time = eventTime(message)?.getTime();
  return {
    event: name,
    properties: {
      ...contextProperties(message),
      ...properties,
      token: config.token,
      distinct_id: distinctId,
      ...(time !== undefined && { time }),
      $insert_id: insertId(message, name, distinctId, time),
      // Identifying Users (Simplified), "Server-side Identity Management": $device_id and $user_id on the
      // same event link the anonymous and the known user.
      ...(anonymousId && { $device_id: anonymousId }),
      ...(userId && { $user_id: userId }),
    },
  };
}

const post = (endpoint: string, batch: unknown[], message: Message, headers: Record<string, string> = JSON_HEADERS, params?: Record<string, string>) =>
  restRequest({ method: 'POST', endpoint, headers, params, jsonArray: { batch }, userId: message.anonymousId });

/**
 * Import Events authenticates with the project secret as the Basic user name and an empty password; without a
 * secret, Track Events takes the same event objects with the token inside them.
 */
function eventRequest(message: Message, config: MixpanelConfig, event: Record<string, unknown>): DestinationRequest {
  const { api } = hosts(config);
  if (!config.apiSecret) return post(`${api}/track`, [event], message);
  const auth = `Basic ${Buffer.from(`${config.apiSecret}:`).toString('base64')}`;
  return post(`${api}/import`, [event], message, { ...JSON_HEADERS, Authorization: auth }, { strict: '1' });
}

/**
 * Profile and group updates (/engage, /groups) "return a 200 OK even if there are data validation issues. To ensure
 * the request actually succeeded, you need to check the response body" (User Profiles, "Set Property"): with
 * verbose=1 the body is `{status: 1}`, or `{status: 0, error}` when Mixpanel refused it (mixpanelVerdicts).
 */
const VERBOSE = { verbose: '1' };

/**
 * `$ip` of a profile update: "If $ip isn't provided, Mixpanel will use the IP address of the request" (Weir's, so
 * every update would move the user to Weir's data centre); the event's own address, else "0", which tells Mixpanel
 * to leave the profile's location as it is.
 */
const profileIp = (message: Message) => {
  const ip = firstOf(message, 'context.ip', 'request_ip');
  return typeof ip === 'string' && ip !== '' ? ip : '0';
};

/** Reserved Profile Properties: Mixpanel shows these in its reports under their $ names. */
const RESERVED: Record<string, string> = {
  email: '$email',
  phone: '$phone',
  name: '$name',
  firstName: '$first_name',
  lastName: '$last_name',
  avatar: '$avatar',
};
const profileProperties = (traits: Record<string, unknown>) => Object.fromEntries(Object.entries(traits).map(([key, value]) => [RESERVED[key] ?? key, value]));

/** User Profiles "Set Property" on /engage; with both ids, Identities "Create Identity" ($identify) on /track. */
function identify(message: Message, config: MixpanelConfig): DestinationRequest[] {
  const { userId, anonymousId, distinctId } = idsOf(message);
  const { api } = hosts(config);
  const profile = { $token: config.token, $distinct_id: distinctId, $ip: profileIp(message), $set: profileProperties(traitsOf(message)) };
  const requests = [post(`${api}/engage`, [profile], message, JSON_HEADERS, VERBOSE)];
  if (userId && anonymousId && userId !== anonymousId) {
    // Needed by projects on Original ID Merge; Simplified ID Merge links the two through $device_id/$user_id.
    const properties = {
      token: config.token,
      distinct_id: userId,
      $identified_id: userId,
      $anon_id: anonymousId,
      $device_id: anonymousId,
      $user_id: userId,
    };
    requests.push(post(`${api}/track`, [{ event: '$identify', properties }], message));
  }
  return requests;
}

/** Identities "Create Alias": distinct_id is the existing id (previousId), alias the new one (userId). */
function alias(message: Message, config: MixpanelConfig): DestinationRequest[] {
  const previousId = idText(message.previousId);
  const userId = userIdOf(message);
  if (!previousId || !userId) throw instrumentationError('a Mixpanel alias needs both previousId and userId');
  const properties = { token: config.token, distinct_id: previousId, alias: userId };
  return [post(`${hosts(config).api}/track`, [{ event: '$create_alias', properties }], message)];
}

/**
 * Group Profiles "Update Property" ($set on /groups) for the group's traits, and User Profiles "Union To List
 * Property" so the user's profile lists the group under its group key. The group key is traits.groupType
 * (default "group"); it must match a group key set up in the Mixpanel project.
 */
function group(message: Message, config: MixpanelConfig): DestinationRequest[] {
  const { distinctId } = idsOf(message);
  const groupId = idText(message.groupId);
  if (!groupId) throw instrumentationError('a Mixpanel group event needs a groupId');
  const { groupType, ...traits } = isRecord(message.traits) ? message.traits : {};
  const groupKey = typeof groupType === 'string' && groupType !== '' ? groupType : 'group';
  const { api } = hosts(config);
  const requests: DestinationRequest[] = [];
  if (Object.keys(traits).length > 0) {
    requests.push(post(`${api}/groups`, [{ $token: config.token, $group_key: groupKey, $group_id: groupId, $set: traits }], message, JSON_HEADERS, VERBOSE));
  }
  const union = { $token: config.token, $distinct_id: distinctId, $ip: profileIp(message), $union: { [groupKey]: [groupId] } };
  requests.push(post(`${api}/engage`, [union], message, JSON_HEADERS, VERBOSE));
  return requests;
}

/** Pages and screens are custom events, named as viewEvent names them. */
function view(message: Message, config: MixpanelConfig): DestinationRequest[] {
  const { event, properties } = viewEvent(message);
  return [eventRequest(message, config, mixpanelEvent(message, config, event, properties))];
}

/**
 * /import with strict=1 answers 400 with failed_records (index, message) and imports every other event. A profile
 * or group update answered 2xx with `status: 0` (VERBOSE) was refused: alone, its event is aborted with Mixpanel's
 * error; in a batch, whose answer does not say which update it was, every update is put off, to be sent again alone
 * (a retry is one event's request), so that only the one Mixpanel refuses is aborted. Updates are idempotent
 * ($set, $union): one Mixpanel took is not changed by being sent again.
 */
function mixpanelVerdicts(answer: { status: number; response: unknown }, count: number, request?: DestinationRequest): ChunkEventVerdict[] | undefined {
  const profiles = request !== undefined && /\/(engage|groups)$/.test(request.endpoint);
  if (profiles && answer.status >= 200 && answer.status < 300 && isRecord(answer.response) && answer.response.status === 0) {
    const error = `Mixpanel refused the ${request.endpoint.endsWith('/groups') ? 'group' : 'profile'} update: ${String(answer.response.error ?? 'no reason given')}`;
    if (count === 1) return [{ kind: 'refused', error }];
    return Array.from({ length: count }, () => ({ kind: 'retryable', error: `${error} (one of ${count} updates; each is sent again alone)` }));
  }
  const failed = isRecord(answer.response) && Array.isArray(answer.response.failed_records) ? answer.response.failed_records : undefined;
  if (answer.status !== 400 || !failed) return undefined;
  const errors = new Map<number, string>();
  for (const record of failed)
    if (isRecord(record) && Number.isInteger(record.index)) errors.set(record.index as number, String(record.message ?? 'invalid event'));
  return Array.from({ length: count }, (_, i) =>
    errors.has(i) ? { kind: 'refused', error: `Mixpanel refused the event: ${errors.get(i)}` } : { kind: 'delivered' },
  );
}

export const mixpanel = defineDestinationCode<typeof mixpanelDefinition>({
  delivery: 'http',
  // Track Events (developer.mixpanel.com/reference/track-event, read 2026-11-29), "/track vs /import": /track
  // ingests historical events of the "Last 5 days only"; "historical events not appearing" (docs.mixpanel.com/
  // troubleshooting): "/track silently drops anything older than five days" while answering 200. /import (with
  // apiSecret) takes "any time after 1971-01-01".
  // Only events (track, page, screen) go to /track; profile updates carry no time.
  ageWindow: (message, config) =>
    !config.apiSecret && ['track', 'page', 'screen'].includes(String(message.type))
      ? { vendor: 'Mixpanel', maxAgeMs: 5 * DAY_MS, maxAge: '5 days on /track' }
      : undefined,
  batch: {
    // Track Events (docs.mixpanel.com/reference/track-event, read 2026-11-29), "/track vs /import": 2,000 events a
    // request on both, and "the limits for track are the same as /import"; Import Events: "up to 2000 events and
    // 2MB uncompressed per request" (the 413 page now says 10 MB: the smaller bound is kept).
    // Profile and group updates take 2,000 too (User Profiles "Limits") but stay at 50: a batch refused in its
    // 2xx body names no update, so each of its updates is sent again alone (mixpanelVerdicts).
    maxEvents: (request) => (/\/(engage|groups)$/.test(request.endpoint) ? 50 : 2000),
    maxBytes: 2_000_000,
    lists: ['JSON_ARRAY.batch'],
    verdicts: mixpanelVerdicts,
  },
  transform(message, config) {
    switch (message.type) {
      case 'track': {
        if (typeof message.event !== 'string' || message.event === '') throw instrumentationError('a track event needs an event name');
        return [eventRequest(message, config, mixpanelEvent(message, config, message.event, propertiesOf(message)))];
      }
      case 'page':
      case 'screen':
        return view(message, config);
      case 'identify':
        return identify(message, config);
      case 'alias':
        return alias(message, config);
      case 'group':
        return group(message, config);
      default:
        throw instrumentationError(`message type ${String(message.type)} is not supported by Mixpanel`);
    }
  },
  async deleteUsers(users, config, io) {
    if (!config.gdprApiToken) return { status: 'failed', error: 'gdprApiToken is required to delete users', retryable: false };
    // GDPR API v3 "Create a Deletion Task": POST /api/app/data-deletions/v3.0/?token=, Bearer OAuth token.
    // The docs allow 2000 distinct ids per retrieval request; deletions are sent in batches of that size too.
    return deleteInSlices('Mixpanel', users, 2000, io, (slice) =>
      postJson(
        `${hosts(config).app}/api/app/data-deletions/v3.0/`,
        { distinct_ids: slice.map((u) => u.userId), compliance_type: 'GDPR' },
        { headers: { Authorization: `Bearer ${config.gdprApiToken}` }, params: { token: config.token } },
      ),
    );
  },
});
