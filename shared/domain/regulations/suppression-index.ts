import { MAX_IDENTIFIER_BYTES } from '../ingestion/schemas';
import type { RegulationRepository, SuppressionScope } from './ports';

/**
 * The suppression index: which users are suppressed for a source. Every consumer of stored events (delivery,
 * schema capture, live events) asks it once per stream batch (or page) with the batch's distinct userIds, in
 * one strongly consistent read round, never one per event: an event whose request came after a regulation's
 * create returned is read after it too, so it is never delivered, captured or shown; a cancel lifts it for the
 * events read after the cancel returned.
 */
export class SuppressionIndex {
  constructor(private readonly regulations: Pick<RegulationRepository, 'suppressionsOf'>) {}

  /** The normalised userIds among `userIds` that a regulation in force suppresses on `sourceId`. */
  async suppressedUsers(workspaceId: string, sourceId: string, userIds: Iterable<unknown>): Promise<Set<string>> {
    const suppressed = new Set<string>();
    const inForce = await this.scopesOf(workspaceId, userIds);
    for (const [userId, scopes] of inForce) {
      if (scopes.some((scope) => scope === '*' || scope.includes(sourceId))) suppressed.add(userId);
    }
    return suppressed;
  }

  /** The suppressions in force of those of `userIds` that have any: normalised userId → its scopes. */
  async scopesOf(workspaceId: string, userIds: Iterable<unknown>): Promise<Map<string, SuppressionScope[]>> {
    // A userId longer than any regulation's can never be suppressed, and would not fit the index's key.
    const distinct = [
      ...new Set([...userIds].map(normaliseUserId).filter((id): id is string => id !== undefined && Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES)),
    ];
    if (distinct.length === 0) return new Map();
    return this.regulations.suppressionsOf(workspaceId, distinct);
  }
}

/** Stored events on their way to a consumer: one ingest part. */
export interface EventsOfSource<E extends Record<string, unknown> = Record<string, unknown>> {
  workspaceId: string;
  sourceId: string;
  events: E[];
}

type Dropped = Map<string, { workspaceId: string; sourceId: string; count: number }>;

/**
 * Consumers' side of suppression: for each part, the indexes of the events of users suppressed for its
 * source, with one index read round per workspace for the whole stream batch; and how many, per workspace
 * and source.
 */
export async function suppressedIn(index: SuppressionIndex, parts: EventsOfSource[]): Promise<{ indexes: Set<number>[]; dropped: Dropped }> {
  const byWorkspace = new Map<string, Set<unknown>>();
  for (const part of parts) {
    const users = byWorkspace.get(part.workspaceId) ?? new Set<unknown>();
    for (const event of part.events) if (event.userId !== undefined) users.add(event.userId);
    byWorkspace.set(part.workspaceId, users);
  }
  const scopes = new Map<string, Map<string, SuppressionScope[]>>();
  await Promise.all([...byWorkspace].map(async ([workspaceId, users]) => scopes.set(workspaceId, await index.scopesOf(workspaceId, users))));
  const dropped: Dropped = new Map();
  const indexes = parts.map((part) => {
    const found = new Set<number>();
    const inForce = scopes.get(part.workspaceId)!;
    if (inForce.size === 0) return found;
    part.events.forEach((event, i) => {
      const scope = inForce.get(normaliseUserId(event.userId) ?? '');
      if (scope?.some((s) => s === '*' || s.includes(part.sourceId))) found.add(i);
    });
    if (found.size > 0) {
      const key = `${part.workspaceId}#${part.sourceId}`;
      const entry = dropped.get(key) ?? { workspaceId: part.workspaceId, sourceId: part.sourceId, count: 0 };
      entry.count += found.size;
      dropped.set(key, entry);
    }
    return found;
  });
  return { indexes, dropped };
}

/** The parts without the events of suppressed users (copies; the parts given are left alone). */
export async function withoutSuppressed<P extends EventsOfSource>(index: SuppressionIndex, parts: P[]): Promise<{ parts: P[]; dropped: Dropped }> {
  const { indexes, dropped } = await suppressedIn(index, parts);
  const kept = parts.map((part, i) => (indexes[i]!.size === 0 ? part : { ...part, events: part.events.filter((_, k) => !indexes[i]!.has(k)) }));
  return { parts: kept, dropped };
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
