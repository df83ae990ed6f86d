import { ingestedAt } from '../delivery/hours';
import type { IngestPart } from './records';
import { countOfSource, type SourceCounts } from '../regulations/suppression-index';

/** How long a source remembers a messageId it accepted, unless the source says otherwise (`deduplicationWindowHours`). */
export const DEFAULT_DEDUPLICATION_WINDOW_HOURS = 24;
/** The longest window a source may set: 7 days. */
export const MAX_DEDUPLICATION_WINDOW_HOURS = 168;

/** One event's claim on its messageId: the first event (by its place in its stored part) that holds it is the one delivered. */
export interface MessageClaim {
  workspaceId: string;
  sourceId: string;
  messageId: string;
  /** The event that claims it: `<requestId>#<part>#<index>` of its stored part. */
  claimant: string;
  /** When the claiming event was accepted (its request's answer), in ms. */
  at: number;
  /** How long the claim holds from `at`, in ms. */
  windowMs: number;
  /**
   * The stored count that counts the claiming event's part, kept on the claim from its first write on
   * (delivery's stream consumer gives one; source-funnel.ts): the part's own record that it was counted.
   */
  countId?: string;
}

/** What came of a claim: the event that holds the messageId when another does, else the count its claim names. */
export interface ClaimOutcome {
  seen?: SeenMessage;
  countedIn?: string;
  /** This write named the count: the claim named none before (it did not exist, or schema capture made it). */
  named?: boolean;
}

/** The event that holds a messageId, as a duplicate names it. */
export interface SeenMessage {
  claimant: string;
  /** When that event was accepted. */
  firstSeenAt: string;
}

export interface ClaimOptions {
  readFirst?: boolean;
  readOnly?: boolean;
  /** The count new claims name (MessageClaim.countId). */
  countId?: string;
}

/** Where claims are kept: one item per (source, messageId), written only if absent, its own, or past its window. */
export interface MessageIdIndex {
  /**
   * Claims each messageId for its claimant. Per claim: no `seen` when the claimant holds it (now, or from
   * before: a part handed over again), with the count its claim names; else the event that holds it (the
   * claim is a duplicate). `readFirst`
   * looks before writing, for a reader that mostly finds the claims already made (schema capture runs beside
   * delivery); `readOnly` only looks (a view), and a claim not made yet is no duplicate.
   */
  claim(claims: MessageClaim[], options?: ClaimOptions): Promise<ClaimOutcome[]>;
}

/** Each part's duplicate events (by index), with the event each repeats; and how many per source. */
export interface Duplicates {
  indexes: Map<number, SeenMessage>[];
  /**
   * Per part, the count its own claims name (the earliest, should they name several: a part whose claims were
   * written by two attempts); undefined for a part that holds no claim (all its events duplicates).
   */
  countedIn: (string | undefined)[];
  /**
   * Per part, whether this call named the count on every claim it holds (and it holds at least one): every
   * delivery's claims name one, so no delivery got past this part's claims before, and nothing of it was sent,
   * held or recorded at any destination yet.
   */
  fresh: boolean[];
  counts: SourceCounts;
}

/**
 * At most once per messageId and source: an event whose messageId the source accepted within its window (in
 * another request, another part, or earlier in the same part) is a duplicate, never delivered nor captured
 * again. The claim is made by the consumers, not at ingestion (no round trip on the request path), and is
 * keyed by the claiming event's place, so a part handed over again after a crash finds its own claims and goes
 * on: nothing acknowledged is lost between the store write and the claim. A replay's part
 * (`replay.<id>.<requestId>`) claims as the part it replays.
 */
export class DuplicateFilter {
  constructor(
    private readonly index: MessageIdIndex,
    /** The source's window in hours (undefined: the default), as the process keeps its sources (cachedSources). */
    private readonly windowHoursOf: (workspaceId: string, sourceId: string) => Promise<number | undefined>,
  ) {}

  async duplicatesIn(parts: IngestPart[], options: ClaimOptions = {}): Promise<Duplicates> {
    const indexes = parts.map(() => new Map<number, SeenMessage>());
    const claims: MessageClaim[] = [];
    const places: { part: number; index: number }[] = [];
    for (const [p, part] of parts.entries()) {
      const windowMs = ((await this.windowHoursOf(part.workspaceId, part.sourceId)) ?? DEFAULT_DEDUPLICATION_WINDOW_HOURS) * 3600_000;
      // A replay's part (`replay.<id>.<requestId>`) claims as the part it replays, at that part's acceptance.
      const original = /^replay\.[^.]+\.(.+)$/.exec(part.requestId)?.[1] ?? part.requestId;
      const at = ingestedAt(original);
      const first = new Map<string, string>();
      part.events.forEach((event, index) => {
        const messageId = typeof event.messageId === 'string' ? event.messageId : undefined;
        if (messageId === undefined) return;
        const claimant = `${original}#${part.part}#${index}`;
        const earlier = first.get(messageId);
        // The same messageId twice in one part: the first is the one that goes.
        if (earlier !== undefined) return void indexes[p]!.set(index, { claimant: earlier, firstSeenAt: new Date(at).toISOString() });
        first.set(messageId, claimant);
        claims.push({ workspaceId: part.workspaceId, sourceId: part.sourceId, messageId, claimant, at, windowMs, countId: options.countId });
        places.push({ part: p, index });
      });
    }
    const held = claims.length > 0 ? await this.index.claim(claims, options) : [];
    const countedIn: Duplicates['countedIn'] = parts.map(() => undefined);
    const own = parts.map(() => ({ held: 0, named: 0 }));
    held.forEach(({ seen, countedIn: id, named }, k) => {
      const p = places[k]!.part;
      if (seen) return void indexes[p]!.set(places[k]!.index, seen);
      own[p]!.held++;
      if (named) own[p]!.named++;
      if (id !== undefined && (countedIn[p] === undefined || id < countedIn[p]!)) countedIn[p] = id;
    });
    const fresh = own.map(({ held, named }) => held > 0 && named === held);
    const counts: SourceCounts = new Map();
    for (const [p, part] of parts.entries()) if (indexes[p]!.size > 0) countOfSource(counts, part, indexes[p]!.size);
    return { indexes, counts, countedIn, fresh };
  }
}
