import * as z from 'zod';
import { seriesWindow, type SeriesQuery } from '../delivery/series';
import { NotFoundError } from '../errors';
import type { IngestRepository } from '../ingestion/ports';
import type { SuppressionIndex } from '../regulations/suppression-index';
import type { PlanSeriesReads, TrackingPlanRepository } from './ports';
import { VIOLATION_TYPES } from './schemas';
import { planSeries, type PlanSeries } from './series';

/** Samples are looked for in the live events: a day of a source's stored requests, newest first… */
const SAMPLES_MAX_AGE_MS = 24 * 3600_000;
/** …at most this many stored parts (requests, or a request's share of a shard) of each source held to the plan. */
export const SAMPLE_PARTS_PER_SOURCE = 100;
const PAGE_PARTS = 20;

export const ViolationsQuery = z.object({ limit: z.coerce.number({ error: 'limit must be a number' }).int().min(1).max(50).default(20) }).strict();

export const PlanViolations = z.object({
  planId: z.string(),
  events: z
    .array(
      z.object({
        messageId: z.string(),
        type: z.string(),
        event: z.string().optional().describe('a track event’s name'),
        sourceId: z.string(),
        receivedAt: z.string(),
        version: z.number().int().describe('the plan version it was validated against'),
        dropped: z.boolean().describe('dropped by the plan (drop-event mode, or an unplanned event dropped): delivered nowhere'),
        violations: z.array(z.object({ type: z.enum(VIOLATION_TYPES), message: z.string() })),
      }),
    )
    .describe('the newest events with violations, newest first'),
  scanned: z
    .object({ parts: z.number().int(), since: z.string() })
    .describe(
      `where they were looked for: the stored requests of each source held to the plan, newest first, at most ${SAMPLE_PARTS_PER_SOURCE} a source and a day old`,
    ),
});
export type PlanViolations = z.infer<typeof PlanViolations>;
type Sample = PlanViolations['events'][number];

/**
 * A tracking plan over time: its counts per time bucket (series.ts), and sample offending events read from what
 * Weir keeps anyway, the sources' live events (each event stored with the plan's verdict in its context), so
 * that counting writes nothing more for them.
 */
export class PlanViews {
  constructor(
    private readonly plans: Pick<TrackingPlanRepository, 'get' | 'links'>,
    private readonly counters: PlanSeriesReads,
    private readonly ingest: Pick<IngestRepository, 'recent'>,
    private readonly suppression: Pick<SuppressionIndex, 'unsuppressed'>,
  ) {}

  /** The plan's events validated per time bucket of ingestion, over every source and version held to it. */
  async series(workspaceId: string, planId: string, query: SeriesQuery): Promise<PlanSeries> {
    await this.plan(workspaceId, planId);
    const window = seriesWindow(query);
    return planSeries(planId, window, await this.counters.seriesByHour(workspaceId, planId, window.fromHour, window.toHour));
  }

  /** The newest events with violations of the plan, newest first, from the live events of the sources ever held to it. */
  async violations(workspaceId: string, planId: string, query: z.output<typeof ViolationsQuery>): Promise<PlanViolations> {
    await this.plan(workspaceId, planId);
    const sources = [...new Set((await this.plans.links(workspaceId, planId)).map((l) => l.sourceId))];
    const since = new Date(Date.now() - SAMPLES_MAX_AGE_MS).toISOString();
    const found = await Promise.all(sources.map((sourceId) => this.samplesOf(workspaceId, planId, sourceId, since, query.limit)));
    const events = found
      .flatMap((f) => f.samples)
      .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt))
      .slice(0, query.limit);
    return { planId, events, scanned: { parts: found.reduce((n, f) => n + f.parts, 0), since } };
  }

  private async plan(workspaceId: string, planId: string) {
    if (!(await this.plans.get(workspaceId, planId))) throw NotFoundError.of('tracking plan', planId);
  }

  /** A source's newest `limit` offending events of the plan (users suppressed since left out), and the parts read. */
  private async samplesOf(workspaceId: string, planId: string, sourceId: string, since: string, limit: number) {
    const samples: (Sample & { userId?: unknown })[] = [];
    let parts = 0;
    let after: string | undefined;
    let more = true;
    while (more && samples.length < limit && parts < SAMPLE_PARTS_PER_SOURCE) {
      const page = await this.ingest.recent(workspaceId, sourceId, Math.min(PAGE_PARTS, SAMPLE_PARTS_PER_SOURCE - parts), after);
      more = page.more;
      for (const part of page.parts) {
        if (part.receivedAt < since) {
          more = false;
          break;
        }
        parts++;
        after = part.cursor;
        const offending = [...part.events.map((e) => [e, false] as const), ...part.dropped.map((e) => [e, true] as const)].reverse();
        for (const [event, dropped] of offending) {
          const sample = sampleOf(event, planId, sourceId, part.receivedAt, dropped);
          if (sample) samples.push(sample);
        }
      }
    }
    const kept = await this.suppression.unsuppressed(workspaceId, sourceId, samples);
    return { samples: kept.map(({ userId: _userId, ...sample }) => sample), parts };
  }
}

/** An event as a sample when the plan found violations in it (its context says so), with the user it is of. */
function sampleOf(event: Record<string, unknown>, planId: string, sourceId: string, partAt: string, dropped: boolean) {
  const context = (event.context ?? {}) as { trackingPlanId?: unknown; trackingPlanVersion?: unknown; violationErrors?: unknown };
  if (context.trackingPlanId !== planId || !Array.isArray(context.violationErrors) || context.violationErrors.length === 0) return undefined;
  const violations = (context.violationErrors as { type?: unknown; message?: unknown }[])
    .filter((v) => VIOLATION_TYPES.includes(v.type as (typeof VIOLATION_TYPES)[number]))
    .map((v) => ({ type: v.type as (typeof VIOLATION_TYPES)[number], message: String(v.message ?? '') }));
  return {
    messageId: String(event.messageId ?? ''),
    type: String(event.type ?? ''),
    ...(typeof event.event === 'string' && { event: event.event }),
    sourceId,
    receivedAt: typeof event.receivedAt === 'string' ? event.receivedAt : partAt,
    version: Number(context.trackingPlanVersion ?? 0),
    dropped,
    violations,
    userId: event.userId,
  };
}
