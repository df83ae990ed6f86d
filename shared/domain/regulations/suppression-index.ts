import type { RegulationRepository } from '../../persistence/regulation-repository';
import { MAX_IDENTIFIER_BYTES } from '../ingestion/schemas';

/**
 * The suppression index: which users of a request are suppressed for its source. Ingestion asks once per
 * request with the request's distinct userIds (one strongly consistent read round, never one per event), so
 * a regulation is in force as soon as its create call has returned, and lifted as soon as its cancel has.
 */
export class SuppressionIndex {
  constructor(private readonly regulations: RegulationRepository) {}

  /** The normalised userIds among `userIds` that a regulation in force suppresses on `sourceId`. */
  async suppressedUsers(workspaceId: string, sourceId: string, userIds: Iterable<unknown>): Promise<Set<string>> {
    // A userId longer than any regulation's can never be suppressed, and would not fit the index's key.
    const distinct = [
      ...new Set([...userIds].map(normaliseUserId).filter((id): id is string => id !== undefined && Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES)),
    ];
    const suppressed = new Set<string>();
    if (distinct.length === 0) return suppressed;
    const inForce = await this.regulations.suppressionsOf(workspaceId, distinct);
    for (const [userId, scopes] of inForce) {
      if (scopes.some((scope) => scope === '*' || scope.includes(sourceId))) suppressed.add(userId);
    }
    return suppressed;
  }
}

/**
 * The userId as regulations match it: trimmed, numbers as their text. Events without one (anonymous) never
 * match, and neither does a blank one.
 */
export function normaliseUserId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
