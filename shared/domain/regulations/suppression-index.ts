import { TenantCache } from '../../tenant-cache';
import { MAX_IDENTIFIER_BYTES } from '../ingestion/schemas';
import type { RegulationRepository, SuppressionScope } from './ports';

/** How long a process keeps what it read of users, at most, whatever the stamp says (see `SuppressionIndex`). */
export const SUPPRESSION_MEMORY_MS = 60_000;
/** The users a process keeps per workspace, and the workspaces it keeps, at most. */
const USERS_KEPT = 50_000;
const WORKSPACES_KEPT = 1_000;

/** What a process read of a workspace's users: their scopes (null: none), valid while the stamp is `stamp`. */
interface Known {
  stamp: number;
  until: number;
  users: Map<string, SuppressionScope[] | null>;
}

/**
 * The suppression index: which users are suppressed for a source. Every consumer of stored events (delivery,
 * schema capture, live events) asks it once per stream batch (or page) with the batch's distinct userIds, never
 * once per event. Each ask reads the workspace's suppression stamp, strongly consistent, which moves after every
 * create and cancel has written its suppression items; what the process read of a user before stands while the
 * stamp has not moved (and for a minute at most), and only users it has not read since are read, in one strongly
 * consistent read round. So an event whose request came after a regulation's create returned is read after the
 * moved stamp, and is never delivered, captured or shown; a cancel lifts it for the events read after the cancel
 * returned; and a busy workspace's recurring users cost one read a stream batch, not one each.
 */
export class SuppressionIndex {
  private readonly known = new TenantCache<{ workspaceId: string }, Known>({ max: WORKSPACES_KEPT });

  constructor(private readonly regulations: Pick<RegulationRepository, 'suppressionsOf' | 'suppressionStamp'>) {}

  /** The normalised userIds among `userIds` that a regulation in force suppresses on `sourceId`. */
  async suppressedUsers(workspaceId: string, sourceId: string, userIds: Iterable<unknown>): Promise<Set<string>> {
    const suppressed = new Set<string>();
    const inForce = await this.scopesOf(workspaceId, userIds);
    for (const [userId, scopes] of inForce) {
      if (scopes.some((scope) => scope === '*' || scope.includes(sourceId))) suppressed.add(userId);
    }
    return suppressed;
  }

  /** `items` without those of the users a regulation in force suppresses on `sourceId`. */
  async unsuppressed<T extends { userId?: unknown }>(workspaceId: string, sourceId: string, items: T[]): Promise<T[]> {
    const userIds = items.map((item) => item.userId);
    const suppressed = await this.suppressedUsers(workspaceId, sourceId, userIds);
    return suppressed.size === 0 ? items : items.filter((item) => !suppressed.has(normaliseUserId(item.userId) ?? ''));
  }

  /** The suppressions in force of those of `userIds` that have any: normalised userId → its scopes. */
  async scopesOf(workspaceId: string, userIds: Iterable<unknown>): Promise<Map<string, SuppressionScope[]>> {
    // A userId longer than any regulation's can never be suppressed, and would not fit the index's key.
    const distinct = [
      ...new Set([...userIds].map(normaliseUserId).filter((id): id is string => id !== undefined && Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES)),
    ];
    if (distinct.length === 0) return new Map();
    const known = this.knownAt(workspaceId, await this.regulations.suppressionStamp(workspaceId));
    const unread = known ? distinct.filter((id) => !known.users.has(id)) : distinct;
    const read = unread.length > 0 ? await this.regulations.suppressionsOf(workspaceId, unread) : new Map<string, SuppressionScope[]>();
    // Kept only while the stamp it was read under is still the process's newest.
    if (known && this.known.get({ workspaceId }) === known && known.users.size + unread.length <= USERS_KEPT) {
      for (const id of unread) known.users.set(id, read.get(id) ?? null);
    }
    const inForce = new Map<string, SuppressionScope[]>();
    for (const id of distinct) {
      const scopes = read.get(id) ?? known?.users.get(id);
      if (scopes) inForce.set(id, scopes);
    }
    return inForce;
  }

  /** What the process knows of the workspace at `stamp`: afresh for a newer stamp, none for an older one. */
  private knownAt(workspaceId: string, stamp: number): Known | undefined {
    const known = this.known.get({ workspaceId });
    if (known && known.stamp === stamp && known.until > Date.now()) return known;
    if (known && known.stamp > stamp) return undefined; // a read older than one this process made already
    return this.known.set({ workspaceId }, { stamp, until: Date.now() + SUPPRESSION_MEMORY_MS, users: new Map() });
  }
}

/** Stored events on their way to a consumer: one ingest part. */
export interface EventsOfSource<E extends Record<string, unknown> = Record<string, unknown>> {
  workspaceId: string;
  sourceId: string;
  events: E[];
}

/** Events counted per workspace and source (keyed `<workspaceId>#<sourceId>`). */
export type SourceCounts = Map<string, { workspaceId: string; sourceId: string; count: number }>;

/** Counts `n` more events of the part's workspace and source. */
export function countOfSource(counts: SourceCounts, part: { workspaceId: string; sourceId: string }, n: number): void {
  const key = `${part.workspaceId}#${part.sourceId}`;
  const entry = counts.get(key) ?? { workspaceId: part.workspaceId, sourceId: part.sourceId, count: 0 };
  entry.count += n;
  counts.set(key, entry);
}

/**
 * Consumers' side of suppression: for each part, the indexes of the events of users suppressed for its
 * source, with one index read round per workspace for the whole stream batch; and how many, per workspace
 * and source.
 */
export async function suppressedIn(index: SuppressionIndex, parts: EventsOfSource[]): Promise<{ indexes: Set<number>[]; dropped: SourceCounts }> {
  const byWorkspace = new Map<string, Set<unknown>>();
  for (const part of parts) {
    const users = byWorkspace.get(part.workspaceId) ?? new Set<unknown>();
    for (const event of part.events) if (event.userId !== undefined) users.add(event.userId);
    byWorkspace.set(part.workspaceId, users);
  }
  const scopes = new Map<string, Map<string, SuppressionScope[]>>();
  await Promise.all([...byWorkspace].map(async ([workspaceId, users]) => scopes.set(workspaceId, await index.scopesOf(workspaceId, users))));
  const dropped: SourceCounts = new Map();
  const indexes = parts.map((part) => {
    const found = new Set<number>();
    const inForce = scopes.get(part.workspaceId)!;
    if (inForce.size === 0) return found;
    part.events.forEach((event, i) => {
      const scope = inForce.get(normaliseUserId(event.userId) ?? '');
      if (scope?.some((s) => s === '*' || s.includes(part.sourceId))) found.add(i);
    });
    if (found.size > 0) countOfSource(dropped, part, found.size);
    return found;
  });
  return { indexes, dropped };
}

/** The parts without the events of suppressed users (copies; the parts given are left alone). */
export async function withoutSuppressed<P extends EventsOfSource>(index: SuppressionIndex, parts: P[]): Promise<{ parts: P[]; dropped: SourceCounts }> {
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
