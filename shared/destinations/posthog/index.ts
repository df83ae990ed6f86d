import { createHash } from 'node:crypto';
import { deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, eventTime, firstOf, idText, isRecord, propertiesOf, traitsOf, trimBase, userIdOf } from '../message';
import { postJson, restRequest } from '../request';
import { defineDestinationCode, type DeletionOutcome, type DeliveryResult, type Message } from '../types';
import type { PostHogConfig, posthogDefinition } from './definition';
import { US_CLOUD } from './endpoints';

/**
 * PostHog: events through the capture API's /batch/ endpoint (project API key in the body), persons deleted
 * through the private persons API (personal API key).
 * Docs: posthog.com/docs/api/capture ("Capture and batch API endpoints"), posthog.com/docs/privacy/data-deletion,
 * posthog.com/docs/api/persons.
 */

const ingestionHost = (config: PostHogConfig) => trimBase(config.yourInstance ?? US_CLOUD);

/**
 * The private API (persons) is served by the app hosts us.posthog.com / eu.posthog.com, not by the ".i."
 * ingestion hosts the capture docs name; a self-hosted instance serves both.
 */
const appHost = (config: PostHogConfig) => ingestionHost(config).replace(/^https:\/\/(us|eu)\.i\.posthog\.com$/, 'https://$1.posthog.com');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * PostHog dedupes on uuid. A messageId that is a UUID is used as it is; any other is turned into one, the
 * same every time (a name-based UUID, version 5 layout, over the messageId), so a resent chunk is harmless.
 */
function uuidOf(messageId: unknown): string | undefined {
  if (typeof messageId !== 'string' || messageId === '') return undefined;
  if (UUID.test(messageId)) return messageId;
  const hex = createHash('sha1').update(`weir:${messageId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The event's own fields: distinct_id, timestamp (ISO 8601) and uuid, which PostHog dedupes on. */
function envelope(message: Message, event: string, distinctId: string, properties: Record<string, unknown>) {
  const timestamp = eventTime(message)?.toISOString();
  const uuid = uuidOf(message.messageId);
  const ip = firstOf(message, 'context.ip', 'request_ip');
  return {
    event,
    distinct_id: distinctId,
    // $lib names the sender, as PostHog's SDKs do; $ip is what PostHog's GeoIP enrichment reads.
    properties: { ...properties, $lib: 'weir', ...(typeof ip === 'string' && { $ip: ip }) },
    ...(timestamp && { timestamp }),
    ...(uuid && { uuid }),
  };
}

function distinctIdOf(message: Message): string {
  const id = userIdOf(message) ?? anonymousIdOf(message);
  if (!id) throw instrumentationError(`PostHog needs a userId or an anonymousId on the ${String(message.type)} event (distinct_id)`);
  return id;
}

/**
 * "Anonymous vs identified events" (posthog.com/docs/data/anonymous-vs-identified-events): an event sent with
 * `$process_person_profile: false` makes no person profile, and costs less; PostHog's own JavaScript SDK sends
 * events so until a user is identified (`person_profiles: 'identified_only'`, its default). Weir does the same
 * for events without a userId; identify, alias and group calls always make or update one.
 */
const anonymousOnly = (message: Message) => (userIdOf(message) ? {} : { $process_person_profile: false });

const nameOf = (message: Message) => (typeof message.name === 'string' && message.name !== '' ? message.name : undefined);

/** One message → the events of one batch, per the event types of the capture docs. */
function posthogEvents(message: Message): Record<string, unknown>[] {
  switch (message.type) {
    case 'track': {
      if (typeof message.event !== 'string' || message.event === '') throw instrumentationError('a track event needs an event name');
      return [envelope(message, message.event, distinctIdOf(message), { ...propertiesOf(message), ...anonymousOnly(message) })];
    }
    case 'identify': {
      // "Identify": $identify with the person properties under $set. $anon_distinct_id links the anonymous id
      // to the known one, as PostHog's SDKs send it when they identify.
      const userId = userIdOf(message);
      const anonymousId = anonymousIdOf(message);
      const merge = userId && anonymousId && anonymousId !== userId ? { $anon_distinct_id: anonymousId } : {};
      return [envelope(message, '$identify', distinctIdOf(message), { $set: traitsOf(message), ...merge })];
    }
    case 'page': {
      // "Pageview": $pageview with $current_url.
      const url = firstOf(message, 'properties.url', 'context.page.url');
      const name = nameOf(message);
      return [
        envelope(message, '$pageview', distinctIdOf(message), {
          ...propertiesOf(message),
          ...(name && { name }),
          ...(typeof url === 'string' && { $current_url: url }),
          ...anonymousOnly(message),
        }),
      ];
    }
    case 'screen': {
      // "Screen view": $screen with $screen_name.
      const name = nameOf(message) ?? firstOf(message, 'properties.name');
      return [
        envelope(message, '$screen', distinctIdOf(message), {
          ...propertiesOf(message),
          ...(typeof name === 'string' && { $screen_name: name }),
          ...anonymousOnly(message),
        }),
      ];
    }
    case 'group': {
      // "Group identify": $groupidentify with $group_type, $group_key and $group_set. The type comes from
      // traits.groupType (default "group"). Any distinct_id is accepted here; PostHog's server SDKs use
      // "$<type>_<key>", which keeps the call off every person's profile.
      const groupKey = idText(message.groupId);
      if (!groupKey) throw instrumentationError('a PostHog group event needs a groupId');
      const { groupType, ...traits } = isRecord(message.traits) ? message.traits : {};
      const type = typeof groupType === 'string' && groupType !== '' ? groupType : 'group';
      return [envelope(message, '$groupidentify', `$${type}_${groupKey}`, { $group_type: type, $group_key: groupKey, $group_set: traits })];
    }
    case 'alias': {
      // "Alias": $create_alias with distinct_id and properties.alias. The known id (userId) is the
      // distinct_id and the earlier id (previousId) the alias merged into it, as PostHog's server SDKs
      // send it: PostHog refuses to merge an alias that is already identified.
      const userId = userIdOf(message);
      const previousId = idText(message.previousId);
      if (!userId || !previousId) throw instrumentationError('a PostHog alias needs both userId and previousId');
      return [envelope(message, '$create_alias', userId, { alias: previousId })];
    }
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by PostHog`);
  }
}

const bearer = (config: PostHogConfig) => ({ Authorization: `Bearer ${config.personalApiKey}` });

/** The ids of the persons a persons-list answer names (`results[].id`, else `results[].uuid`). */
function personIds(result: DeliveryResult): string[] {
  const results = isRecord(result.response) && Array.isArray(result.response.results) ? result.response.results : [];
  return results.flatMap((person: unknown) => {
    const id = isRecord(person) ? (idText(person.id) ?? idText(person.uuid)) : undefined;
    return id ? [id] : [];
  });
}

export const posthog = defineDestinationCode<typeof posthogDefinition>({
  delivery: 'http',
  // /batch/ takes many events per request (20 MB); uuid (from the messageId) makes a resent chunk harmless.
  batch: { maxEvents: 500, maxBytes: 1_000_000, lists: ['JSON.batch'] },
  transform(message, config) {
    // "Batch events": POST /batch/ with the project API key and the events under `batch`.
    return [postJson(`${ingestionHost(config)}/batch/`, { api_key: config.teamApiKey, batch: posthogEvents(message) }, { userId: message.anonymousId })];
  },
  async deleteUsers(users, config, io): Promise<DeletionOutcome> {
    if (!config.personalApiKey || !config.projectId) {
      return { status: 'unsupported', reason: 'PostHog deletes persons only through its private API: set personalApiKey and projectId' };
    }
    // Data deletion docs: find the person by distinct_id (GET persons), then DELETE it with its events.
    const persons = `${appHost(config)}/api/projects/${encodeURIComponent(config.projectId)}/persons`;
    const missing: string[] = [];
    let deleted = 0;
    for (const { userId } of users) {
      const found = await io.send(restRequest({ method: 'GET', endpoint: `${persons}/`, headers: bearer(config), params: { distinct_id: userId } }));
      const lookup = deletionOutcome('PostHog', found);
      if (lookup.status !== 'completed') return lookup;
      const ids = personIds(found);
      if (ids.length === 0) missing.push(userId);
      for (const id of ids) {
        const endpoint = `${persons}/${encodeURIComponent(id)}/`;
        const outcome = deletionOutcome(
          'PostHog',
          await io.send(restRequest({ method: 'DELETE', endpoint, headers: bearer(config), params: { delete_events: 'true' } })),
        );
        // A person gone between the lookup and the delete counts as not found.
        if (outcome.status === 'not_found') missing.push(userId);
        else if (outcome.status !== 'completed') return outcome;
        else deleted++;
      }
    }
    if (deleted === 0 && missing.length > 0) return { status: 'not_found', reason: `PostHog has no person with distinct_id ${missing.join(', ')}` };
    return { status: 'completed', ...(missing.length > 0 && { detail: `no person with distinct_id ${missing.join(', ')}` }) };
  },
});
