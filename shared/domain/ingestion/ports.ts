import type { DroppedPart, IngestBatch, RecentPart, SourceStats, StoredPart } from './records';

/** Where accepted events are kept, durably, before the data plane answers, and what is counted per source. */
export interface IngestRepository {
  /**
   * Stores one request's events in one write (with its refused events and their count, and the source's first
   * event time) and returns how many parts they took; UnauthorizedError when the source is gone, RateLimitedError
   * or ServiceUnavailableError when the store pushes back.
   */
  write(batch: IngestBatch): Promise<number>;
  /**
   * The newest parts (at most `limit`) of one of the source's shards received before `beforeMs`, newest first:
   * what delivery checks before a moved user's events go on from their new shard (shard-switch.ts).
   */
  lastPartsBefore(workspaceId: string, sourceId: string, shard: number, beforeMs: number, limit: number): Promise<{ requestId: string; part: number }[]>;
  /** The events of one stored part (delivery resuming a batch reads them again). */
  readPart(workspaceId: string, sourceId: string, requestId: string, part: number): Promise<Record<string, unknown>[] | undefined>;
  /**
   * The most recent stored parts of a source, newest first, after the part a `cursor` of an earlier answer
   * names (InvalidCursorError for one it never gave).
   */
  recent(workspaceId: string, sourceId: string, limit: number, after?: string): Promise<{ parts: RecentPart[]; more: boolean }>;
  countSuppressed(workspaceId: string, sourceId: string, count: number, at: string): Promise<void>;
  /** Adds requests refused over the source's inbound limit, and their events, to its stats. */
  countThrottled(workspaceId: string, sourceId: string, events: number, requests: number, at: string): Promise<void>;
  /**
   * Adds a process's rate of events taken from a source to the counter of the second `window` (seconds since
   * the epoch) and answers the total of the second before (0 when none was reported).
   */
  reportInbound(workspaceId: string, sourceId: string, window: number, rate: number): Promise<number>;
  sourceStats(workspaceId: string, sourceId: string): Promise<SourceStats>;
}

/** What the delivery audit reads of a source's stored requests. */
export interface StoredEventReads {
  /**
   * The stored parts of a source whose sort keys lie from `fromSk` to `toSk` (request ids sort by time), oldest
   * first, each with its events' messageIds; a request's refused events are not among them. Beside them, the
   * events the source's tracking plan dropped from requests in the range. At most `limit` of both together.
   */
  storedBetween(
    workspaceId: string,
    sourceId: string,
    fromSk: string,
    toSk: string,
    limit: number,
  ): Promise<{ parts: StoredPart[]; dropped: DroppedPart[]; more: boolean }>;
}
