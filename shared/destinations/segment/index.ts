import { createHash } from 'node:crypto';
import { deleteInSlices } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, eventTime, idText, trimBase, userIdOf } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type DestinationRequest, type Message } from '../types';
import type { SegmentConfig, segmentDefinition } from './definition';

/**
 * Segment: every event forwarded to Segment's HTTP Tracking API as one call of POST /v1/batch (so live delivery
 * sends many at once); users deleted through the Public API's workspace regulations. Docs: segment.com/docs
 * "HTTP API Source" (Authentication, Rate limits, Max request size, Regional configuration, Batch, Errors) and
 * "User Deletion and Suppression"; the Public API reference (docs.segmentapis.com, Deletion and Suppression:
 * "Create Workspace Regulation", CreateWorkspaceRegulationV1Input).
 */

// "Regional configuration": Oregon (default) api.segment.io, Dublin events.eu1.segmentapis.com; the Public API
// answers on api.segmentapis.com and, for EU workspaces, eu1.api.segmentapis.com.
const HOSTS = {
  US: { events: 'https://api.segment.io', publicApi: 'https://api.segmentapis.com' },
  EU: { events: 'https://events.eu1.segmentapis.com', publicApi: 'https://eu1.api.segmentapis.com' },
} as const;

// "Max request size": the batch endpoint takes 500 KB a request and 32 KB an event; "Errors": up to 2,500 events.
const MAX_EVENT_BYTES = 32 * 1024;
// "Errors", Deduplication: messageIds must have fewer than 100 characters.
const MAX_MESSAGE_ID_LENGTH = 99;
// "User Deletion and Suppression": up to 5,000 userIds per Public API call.
const MAX_SUBJECTS = 5000;

const hosts = (config: SegmentConfig) =>
  config.baseUrl ? { events: trimBase(config.baseUrl), publicApi: trimBase(config.baseUrl) } : HOSTS[config.region ?? 'US'];

/** "Basic authentication": the write key as the user name, an empty password. */
const basic = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;

/** What Weir adds to an event on its way in (its own hop), left out of what Segment receives. */
const HOP_FIELDS = ['receivedAt', 'sentAt', 'originalTimestamp', 'request_ip', 'weirId', 'writeKey'];

/** A messageId Segment de-duplicates by: the event's own, or the SHA-256 of one of 100 characters or more. */
function messageIdOf(message: Message): string | undefined {
  const id = idText(message.messageId);
  if (!id) return undefined;
  return id.length <= MAX_MESSAGE_ID_LENGTH ? id : createHash('sha256').update(id).digest('hex');
}

/** What each call needs ("HTTP API Source" and its Errors): an identifier; an event name; a groupId; a previousId. */
function check(message: Message): void {
  const type = String(message.type);
  if (!['identify', 'track', 'page', 'screen', 'group', 'alias'].includes(type)) throw instrumentationError(`message type ${type} is not supported by Segment`);
  if (!userIdOf(message) && !anonymousIdOf(message)) throw instrumentationError(`Segment needs a userId or an anonymousId on the ${type} event`);
  if (type === 'track' && !idText(message.event)) throw instrumentationError('a track event needs an event name');
  if (type === 'group' && !idText(message.groupId)) throw instrumentationError('a group event needs a groupId');
  if (type === 'alias' && (!userIdOf(message) || !idText(message.previousId))) throw instrumentationError('a Segment alias needs a userId and a previousId');
}

/** The call as Segment's spec has it: the event itself, its messageId kept, its time as `timestamp`. */
function segmentCall(message: Message): Record<string, unknown> {
  check(message);
  const call: Record<string, unknown> = Object.fromEntries(Object.entries(message).filter(([key]) => !HOP_FIELDS.includes(key)));
  const messageId = messageIdOf(message);
  if (messageId) call.messageId = messageId;
  else delete call.messageId;
  const time = eventTime(message);
  if (time) call.timestamp = time.toISOString();
  const bytes = Buffer.byteLength(JSON.stringify(call));
  if (bytes > MAX_EVENT_BYTES) throw instrumentationError(`the event is ${bytes} bytes; Segment's batch endpoint takes at most 32 KB an event`);
  return call;
}

/** "Batch": {batch: [calls]}; a message is a batch of one, which live delivery combines. */
const batchOfOne = (config: SegmentConfig, message: Message): DestinationRequest =>
  postJson(
    `${hosts(config).events}/v1/batch`,
    { batch: [segmentCall(message)] },
    { headers: { Authorization: basic(config.writeKey) }, userId: message.anonymousId },
  );

export const segment = defineDestinationCode<typeof segmentDefinition>({
  delivery: 'http',
  // 500 KB a request (its calls in UTF-8, with room for the envelope) and 2,500 calls. Segment answers 200 to all
  // but oversized or malformed requests, naming no call; it drops a call whose messageId it has already seen.
  batch: { maxEvents: 2500, maxBytes: 490_000, lists: ['JSON.batch'] },
  transform: (message, config) => [batchOfOne(config, message)],
  /**
   * "Create Workspace Regulation": SUPPRESS_WITH_DELETE of the userIds, up to 5,000 a call, with a Public API
   * token as bearer. Without a token there is nothing to call with: final, saying so.
   */
  async deleteUsers(users, config, io) {
    if (!config.publicApiToken) return { status: 'unsupported', reason: 'Segment deletes users through its Public API: set publicApiToken' };
    return deleteInSlices('Segment', users, MAX_SUBJECTS, io, (slice) =>
      postJson(
        `${hosts(config).publicApi}/regulations`,
        { regulationType: 'SUPPRESS_WITH_DELETE', subjectType: 'USER_ID', subjectIds: slice.map((u) => u.userId) },
        { headers: { Authorization: `Bearer ${config.publicApiToken}` } },
      ),
    );
  },
});
