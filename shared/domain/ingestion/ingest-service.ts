import { NotFoundError, PayloadTooLargeError } from '../errors';
import { newIdAt } from '../ids';
import { countMetrics } from '../../ops/metrics';
import { validate } from '../validation';
import { acceptEvent, isRefused, type IngestedEvent, type RefusedEvent } from './events';
import type { IngestRepository } from './ports';
import { BatchBody, PATH_TYPES, isSegmentClientPath, type IngestPath } from './schemas';
import type { InboundLimits } from './inbound-limits';
import type { PlanStage } from '../tracking-plans/ingest-stage';
import { writeKeyOf, type WriteKeys } from './write-keys';
import { shardsAt } from './shards';

export interface IngestRequest {
  /** The path's type: one of the six, `batch`, or one of their aliases (PATH_TYPES). */
  type: IngestPath;
  body: Record<string, unknown>;
  authorization?: string;
  /** A beacon's or a pixel's write key (they cannot send headers). */
  queryWriteKey?: string;
  /** The client's address (shared/http/client-ip.ts). */
  ip?: string;
}

export interface IngestResult {
  accepted: number;
  refused: RefusedEvent[];
}

/**
 * Ingestion: authenticate the write key, check every event (a bad one refuses the whole request; an
 * oversized one is refused alone), hold the source to its inbound limit (in the process), and store them durably (one write per request, the only store round trip
 * once the write key is known) before answering. The table's stream takes them on to delivery and to schema
 * capture, which drop the events of suppressed users (one index read per stream batch; see
 * suppression-index.ts).
 */
export class IngestService {
  constructor(
    private readonly writeKeys: Pick<WriteKeys, 'sourceOf' | 'firstEventStored'>,
    private readonly ingest: Pick<IngestRepository, 'write'>,
    private readonly limits: Pick<InboundLimits, 'admit'>,
    private readonly plans?: Pick<PlanStage, 'apply'>,
  ) {}

  async accept(request: IngestRequest): Promise<IngestResult> {
    const type = PATH_TYPES[request.type];
    // The write key first, as the field's servers check it: a request without one is a 401 whatever its body.
    const first = Array.isArray(request.body.batch) ? (request.body.batch[0] as Record<string, unknown> | null | undefined) : undefined;
    const writeKey = writeKeyOf(request.authorization, request.body.writeKey, request.queryWriteKey, first?.writeKey);
    const { workspaceId, source } = await this.writeKeys.sourceOf(writeKey);
    // The field's SDKs and servers answer 404 for a disabled source (401 would read as a wrong key).
    if (!source.enabled) throw new NotFoundError('Source is disabled');
    const batchBody = type === 'batch' ? validate(BatchBody, request.body, 'body') : undefined;

    const receivedAtMs = Date.now();
    const receivedAt = new Date(receivedAtMs).toISOString();
    const clock = isSegmentClientPath(request.type) ? 'device-timestamp' : 'original-timestamp';
    const common = { receivedAt, ip: request.ip, sentAt: request.body.sentAt, clock } as const;
    const outcomes = batchBody
      ? batchBody.batch.map((raw, i) => acceptEvent(raw, i, common))
      : [acceptEvent(request.body, 0, { ...common, type: type as Exclude<typeof type, 'batch'> })];
    // Over the source's inbound limit, the whole request is refused (429, nothing stored), so its retry
    // duplicates nothing; every event it holds counts, oversized ones too.
    this.limits.admit(workspaceId, source, outcomes.length);
    const accepted = outcomes.filter((o): o is IngestedEvent => !isRefused(o));
    const refused = outcomes.filter(isRefused);
    // The tracking plan's stage: each event validated once, before it is stored (docs/guides/tracking-plans-and-rules.md).
    const staged = await this.plans?.apply(workspaceId, source, accepted);
    const events = staged ? staged.kept : accepted;
    const plan = staged && { planId: staged.planId, version: staged.version, dropped: staged.dropped, counts: staged.counts };

    const firstEvent = !source.firstEventAt && events.length > 0;
    const shards = shardsAt(source, receivedAtMs);
    const requestId = newIdAt(receivedAtMs);
    await this.ingest.write({ workspaceId, sourceId: source.id, requestId, receivedAt, events, refused, firstEvent, plan, shards });
    if (firstEvent) this.writeKeys.firstEventStored(writeKey, receivedAt);
    countMetrics({ EventsIngested: events.length, EventsRefused: refused.length, EventsDroppedByPlan: staged?.dropped.length ?? 0 });
    if (accepted.length === 0) throw new PayloadTooLargeError(`batch[${refused[0]!.index}]: ${refused[0]!.reason}`);
    return { accepted: events.length, refused };
  }
}
