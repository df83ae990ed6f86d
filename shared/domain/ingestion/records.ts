import type { RefusedEvent } from './events';

/** One request's accepted events (and those it refused), as ingestion stores them before answering. */
export interface IngestBatch {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  receivedAt: string;
  events: Record<string, unknown>[];
  /** The source's shards for this request (shards.ts: shardsAt): its events are grouped by their user's. */
  shards?: number;
  /** Events kept out of the request (oversized): recorded beside it and counted per source. */
  refused?: RefusedEvent[];
  /** The source has had no event yet: its `firstEventAt` is set in the same write. */
  firstEvent?: boolean;
  /**
   * The tracking plan's verdict: the events it dropped (kept beside the request, never delivered) and the
   * request's counts, added to the plan's counters in the same write.
   */
  plan?: { planId: string; version: number; dropped: Record<string, unknown>[]; counts: Map<string, number> };
}

/** One stored part of a request's events, as its stream consumers (delivery, schema capture) read it. */
export interface IngestPart {
  workspaceId: string;
  sourceId: string;
  requestId: string;
  part: number;
  /** The source's shards when it was written (absent: 1). */
  shards?: number;
  events: Record<string, unknown>[];
}

/** A stored part as the audit reads it: where it is, when it came, and its events' messageIds in order. */
export interface StoredPart {
  requestId: string;
  part: number;
  receivedAt: string;
  messageIds: string[];
}

/** The events a request's tracking plan dropped, as the audit reads them: acknowledged, kept beside the request, never delivered. */
export interface DroppedPart {
  requestId: string;
  receivedAt: string;
  messageIds: string[];
}

/** A stored part as a source's recent events show it: its accepted events, or a request's refused ones. */
export interface RecentPart {
  /** Where it is in the source's parts, newest first (opaque): the listing goes on after it. */
  cursor: string;
  requestId: string;
  /** The part's number (shards.ts: its shard's and its index), for a part of accepted events; none for a request's refused or dropped ones. */
  part?: number;
  receivedAt: string;
  events: Record<string, unknown>[];
  refused: RefusedEvent[];
  /** Events the source's tracking plan dropped (each with its violations in `context.violationErrors`). */
  dropped: Record<string, unknown>[];
}

/** What a source's events have met besides delivery: suppressed users' events, refused ones, and those over its inbound limit. */
export interface SourceStats {
  suppressed: number;
  lastSuppressedAt?: string;
  refused: number;
  lastRefusedAt?: string;
  /** Events of requests refused over the source's inbound limit (429), and those requests. */
  throttled: number;
  throttledRequests: number;
  lastThrottledAt?: string;
}
