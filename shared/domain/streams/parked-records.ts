import { countMetrics } from '../../ops/metrics';
import type { ParkedRecordRepository } from './ports';
import type { ParkedRecord, ParkedRecordView, ParkedRef } from './schemas';

/**
 * Parked stream records are replayed by the scheduler after 1 min, 2 min, 4 min … (at most an hour apart;
 * WEIR_PARKED_RETRY_BASE_MS sets the first delay) and never given up; an operator can replay one at once.
 */
export function parkedRetryPolicy(env: NodeJS.ProcessEnv = process.env) {
  const base = Number(env.WEIR_PARKED_RETRY_BASE_MS) > 0 ? Number(env.WEIR_PARKED_RETRY_BASE_MS) : 60_000;
  return {
    delay: (failures: number) => Math.min(3600_000, base * 2 ** Math.max(0, failures - 1)),
    /** How long a replay may take before the scheduler hands the record over again. */
    leaseMs: 5 * 60_000,
  };
}

const ID_SEPARATOR = '.';
const idOf = (r: ParkedRef) => [r.consumer, r.workspaceId, r.eventId].join(ID_SEPARATOR);
function refOf(id: string): ParkedRef | undefined {
  const [consumer, workspaceId, ...rest] = id.split(ID_SEPARATOR);
  const eventId = rest.join(ID_SEPARATOR);
  return consumer && workspaceId && eventId ? { consumer, workspaceId, eventId } : undefined;
}

const SUMMARY_FIELDS = ['entity', 'sourceId', 'requestId', 'part', 'regulationType', 'id'];
const view = (r: ParkedRecord): ParkedRecordView => ({
  id: idOf(r),
  consumer: r.consumer,
  workspaceId: r.workspaceId,
  eventId: r.eventId,
  eventName: r.eventName,
  status: r.status,
  lastError: r.lastError,
  attempts: r.attempts,
  parkedAt: r.parkedAt,
  dueAt: r.dueAt,
  item: Object.fromEntries(SUMMARY_FIELDS.filter((f) => r.image?.[f] !== undefined).map((f) => [f, r.image[f]])),
});

/** The operator's and the scheduler's side of parked stream records. */
export class ParkedRecords {
  private readonly policy = parkedRetryPolicy();

  constructor(private readonly records: Pick<ParkedRecordRepository, 'list' | 'startReplay'>) {}

  /** The scheduler's round: each parked record that is due (or whose replay was lost) is replayed. */
  async replayDue(limit = 100): Promise<number> {
    const now = new Date().toISOString();
    const due = await this.records.list(limit, `${now}#~`);
    countMetrics({ SchedulerBacklog: due.length }, { scheduler: 'parkedRecords' });
    let started = 0;
    for (const record of due) if (await this.records.startReplay(record, now, this.leaseUntil())) started++;
    return started;
  }

  async list(limit = 100): Promise<ParkedRecordView[]> {
    return (await this.records.list(limit)).map(view);
  }

  /** Replays one parked record now, whatever its due time; undefined for an id that names none. */
  async replay(id: string): Promise<ParkedRecordView | undefined> {
    const ref = refOf(id);
    if (!ref) return undefined;
    const started = await this.records.startReplay(ref, new Date().toISOString(), this.leaseUntil(), true);
    return started && view(started);
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.policy.leaseMs).toISOString();
  }
}
