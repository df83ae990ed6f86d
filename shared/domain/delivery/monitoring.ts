import type { DuplicateFilter } from '../ingestion/duplicates';
import * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import type { DeliveryRepository } from './ports';
import { ruleCounters } from './records';
import type { IngestRepository } from '../ingestion/ports';
import { NotFoundError } from '../errors';
import { normaliseUserId, type SuppressionIndex } from '../regulations/suppression-index';

/** Live events are kept this long for the debugger view (the items themselves live longer, for delivery). */
const LIVE_EVENTS_MAX_AGE_MS = 24 * 3600_000;

export const LiveEventsQuery = z.object({
  limit: z.coerce.number({ error: 'limit must be a number' }).int().min(1).max(200).default(50),
  after_cursor: z.string().max(200).optional(),
});

export const Outcomes = z.object({
  destinationId: z.string(),
  delivered: z.number().int(),
  retrying: z.number().int().describe('events parked for a retry right now'),
  aborted: z.number().int(),
  filtered: z.number().int().describe('events the transformation dropped or a rule of a connection stopped'),
  filteredByRule: z
    .array(z.object({ sourceId: z.string(), rule: z.string(), filtered: z.number().int() }))
    .describe('of the filtered, those each rule of a connection (the source’s, to this destination) stopped'),
  suppressed: z.number().int().describe("events of suppressed users, counted at the destination's sources"),
  lastErrors: z.array(z.object({ at: z.string(), messageId: z.string(), status: z.number().optional(), error: z.string() })),
  updatedAt: z.string().optional(),
});

export const LiveEventsPage = z.object({
  events: z.array(z.record(z.string(), z.unknown())),
  paging: z.object({ next: z.string().optional() }),
});

/** A source's live events also list the events it refused (oversized), each with `refused`, and their count. */
export const SourceLiveEventsPage = LiveEventsPage.extend({
  refused: z.object({ events: z.number().int().describe('events refused at ingestion, ever'), lastAt: z.string().optional() }),
  throttled: z
    .object({ events: z.number().int(), requests: z.number().int(), lastAt: z.string().optional() })
    .describe('requests refused over the source’s inbound limit (429), and their events, ever'),
});

/** What the pipeline did: outcome counters per destination, and the live events of sources and destinations. */
export class MonitoringService {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'getDestination' | 'listConnections'>,
    private readonly ingest: Pick<IngestRepository, 'recent' | 'sourceStats'>,
    private readonly deliveries: Pick<DeliveryRepository, 'outcomes' | 'recentBatches'>,
    private readonly suppression: Pick<SuppressionIndex, 'suppressedUsers'>,
    private readonly duplicates: Pick<DuplicateFilter, 'duplicatesIn'>,
  ) {}

  async outcomes(workspaceId: string, destinationId: string): Promise<z.input<typeof Outcomes>> {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
    const sources = (await this.catalog.listConnections(workspaceId)).filter((c) => c.destinationId === destinationId).map((c) => c.sourceId);
    const [stats, ...sourceStats] = await Promise.all([
      this.deliveries.outcomes(workspaceId, destinationId),
      ...sources.map((id) => this.ingest.sourceStats(workspaceId, id)),
    ]);
    const count = (name: string) => Number((stats as Record<string, unknown> | undefined)?.[name] ?? 0);
    return {
      destinationId,
      delivered: count('delivered'),
      retrying: count('retrying'),
      aborted: count('aborted'),
      filtered: count('filtered'),
      filteredByRule: stats ? ruleCounters(stats) : [],
      suppressed: sourceStats.reduce((sum, s) => sum + s.suppressed, 0),
      lastErrors: ((stats?.lastErrors as z.input<typeof Outcomes>['lastErrors'] | undefined) ?? []).slice().reverse(),
      ...(stats?.updatedAt !== undefined && { updatedAt: String(stats.updatedAt) }),
    };
  }

  /**
   * The events a source received, newest first, as stored (suppressed events never are), at most a day old;
   * the events of users suppressed since are left out.
   * A page holds whole stored parts (a request of several ingest shards may span two pages), so it may run a
   * little over `limit`.
   */
  async sourceEvents(workspaceId: string, sourceId: string, query: z.output<typeof LiveEventsQuery>) {
    if (!(await this.catalog.getSource(workspaceId, sourceId))) throw NotFoundError.of('source', sourceId);
    const oldest = new Date(Date.now() - LIVE_EVENTS_MAX_AGE_MS).toISOString();
    const events: Record<string, unknown>[] = [];
    let before = query.after_cursor;
    let more = true;
    while (events.length < query.limit && more) {
      const page = await this.ingest.recent(workspaceId, sourceId, 10, before);
      more = page.more;
      const { indexes: duplicates } = await this.duplicates.duplicatesIn(
        page.parts.map((part) => ({ workspaceId, sourceId, requestId: part.requestId, part: part.part ?? 0, events: part.events })),
        { readOnly: true },
      );
      for (const [i, part] of page.parts.entries()) {
        if (part.receivedAt < oldest) {
          more = false;
          break;
        }
        // A duplicate (its messageId held by an event the source accepted before) says so, and since when.
        const held = duplicates[i]!;
        events.push(...part.events.map((event, k) => (held.has(k) ? { ...event, duplicate: { firstSeenAt: held.get(k)!.firstSeenAt } } : event)).reverse());
        // Events the source's tracking plan dropped: shown with their violations, marked as never delivered.
        for (const event of part.dropped.slice().reverse()) events.push({ ...event, dropped: { reason: 'tracking plan' } });
        for (const { index: _index, reason, bytes, ...summary } of part.refused.slice().reverse()) {
          events.push({ ...summary, receivedAt: part.receivedAt, refused: { reason, bytes } });
        }
        before = part.cursor;
        if (events.length >= query.limit) {
          more ||= i < page.parts.length - 1;
          break;
        }
      }
    }
    const next = more && before ? { after_cursor: before, limit: query.limit } : undefined;
    // Users suppressed since their events came in are not shown either (one read round per page).
    const suppressed = await this.suppression.suppressedUsers(
      workspaceId,
      sourceId,
      events.map((e) => e.userId),
    );
    const shown = suppressed.size === 0 ? events : events.filter((e) => !suppressed.has(normaliseUserId(e.userId) ?? ''));
    const stats = await this.ingest.sourceStats(workspaceId, sourceId);
    const refused = { events: stats.refused, ...(stats.lastRefusedAt && { lastAt: stats.lastRefusedAt }) };
    const throttled = { events: stats.throttled, requests: stats.throttledRequests, ...(stats.lastThrottledAt && { lastAt: stats.lastThrottledAt }) };
    return { events: shown, next, refused, throttled };
  }

  /** What was sent to a destination and what it answered (samples of its recent batches), newest first. */
  async destinationEvents(workspaceId: string, destinationId: string, query: z.output<typeof LiveEventsQuery>) {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
    const oldest = new Date(Date.now() - LIVE_EVENTS_MAX_AGE_MS).toISOString();
    const batches = await this.deliveries.recentBatches(workspaceId, destinationId, 50);
    const events = batches
      .filter((b) => String(b.finishedAt ?? '') >= oldest)
      .flatMap((b) =>
        b.samples
          .slice()
          .reverse()
          .map((s) => ({ ...s, at: b.finishedAt })),
      )
      .slice(0, query.limit);
    return { events, paging: {} };
  }
}
