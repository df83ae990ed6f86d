import { isRecord } from '../message';
import type { ChunkEventVerdict, DestinationRequest } from '../types';

/**
 * Reading the answers of Iterable's bulk endpoints per event. `POST /api/users/bulkUpdate` answers
 * UserBulkUpdateListResponse and `POST /api/events/trackBulk` BulkTrackResponse (Iterable API reference,
 * api.iterable.com/api/docs): a 200 whose `failedUpdates` names, by email and by userId, the users it did not
 * update or whose events it did not track; trackBulk also names `disallowedEventNames`. Their items in the chunk
 * are the events concerned.
 */

type Verdict = Exclude<ChunkEventVerdict, { kind: 'delivered' }>['kind'];

/**
 * Each list of FailedUserUpdates / FailedEventUpdates, what it means for the events it names, and whether it
 * holds emails or userIds. Malformed, forgotten (GDPR), conflicting and invalid-data users stay so: refused.
 * A user Iterable does not know may be one an update still in progress creates (Iterable asks for a 60 s buffer
 * between a user update and dependent calls): sent again later.
 */
const LISTS: { field: string; by: 'email' | 'userId'; verdict: Verdict }[] = [
  { field: 'invalidEmails', by: 'email', verdict: 'refused' },
  { field: 'invalidUserIds', by: 'userId', verdict: 'refused' },
  { field: 'invalidDataEmails', by: 'email', verdict: 'refused' },
  { field: 'invalidDataUserIds', by: 'userId', verdict: 'refused' },
  { field: 'forgottenEmails', by: 'email', verdict: 'refused' },
  { field: 'forgottenUserIds', by: 'userId', verdict: 'refused' },
  { field: 'conflictEmails', by: 'email', verdict: 'refused' },
  { field: 'conflictUserIds', by: 'userId', verdict: 'refused' },
  { field: 'notFoundEmails', by: 'email', verdict: 'retryable' },
  { field: 'notFoundUserIds', by: 'userId', verdict: 'retryable' },
];

const strings = (value: unknown): Set<string> => new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The chunk's items as sent: its users (bulkUpdate) or its events (trackBulk). */
function itemsOf(request: DestinationRequest | undefined): Record<string, unknown>[] | undefined {
  const body = request?.body.JSON ?? {};
  const items = Array.isArray(body.users) ? body.users : Array.isArray(body.events) ? body.events : undefined;
  return items?.map((item) => (isRecord(item) ? item : {}));
}

/** An item's identifiers of one kind: at the top level, and in dataFields (where an identify sets the other one). */
function identifiers(item: Record<string, unknown>, by: 'email' | 'userId'): string[] {
  const fields = isRecord(item.dataFields) ? item.dataFields : {};
  return [item[by], fields[by]].filter((v): v is string => typeof v === 'string' && v !== '');
}

function verdictOf(item: Record<string, unknown>, named: (field: string) => Set<string>, disallowed: Set<string>): ChunkEventVerdict {
  for (const { field, by, verdict } of LISTS) {
    const hit = identifiers(item, by).find((id) => named(field).has(id));
    if (hit === undefined) continue;
    return verdict === 'refused'
      ? { kind: 'refused', error: `Iterable refused the event: failedUpdates.${field} names ${hit}` }
      : { kind: 'retryable', error: `Iterable does not know the user yet: failedUpdates.${field} names ${hit}` };
  }
  if (typeof item.eventName === 'string' && disallowed.has(item.eventName)) {
    return { kind: 'refused', error: `Iterable refused the event: disallowedEventNames names ${item.eventName}` };
  }
  return { kind: 'delivered' };
}

/**
 * A verdict per event where a 2xx answer of a bulk endpoint names some of its users or events as failed;
 * undefined when it names none of them (every event then counts as delivered) or for any other answer.
 * The deprecated top-level `invalidEmails` / `invalidUserIds` are read too, for answers that carry only those.
 */
export function iterableVerdicts(answer: { status: number; response: unknown }, count: number, request?: DestinationRequest): ChunkEventVerdict[] | undefined {
  if (answer.status < 200 || answer.status >= 300 || !isRecord(answer.response)) return undefined;
  const items = itemsOf(request);
  if (!items || items.length !== count) return undefined;
  const body = answer.response;
  const failedUpdates = isRecord(body.failedUpdates) ? body.failedUpdates : {};
  const named = (field: string) => new Set([...strings(failedUpdates[field]), ...strings(body[field])]);
  const verdicts = items.map((item) => verdictOf(item, named, strings(body.disallowedEventNames)));
  return verdicts.some((v) => v.kind !== 'delivered') ? verdicts : undefined;
}
