import type { CatalogRepository } from '../../persistence/catalog-repository';
import { newId } from '../ids';
import type { IngestRepository } from '../../persistence/ingest-repository';
import { authenticateWriteKey } from '../auth/authenticate';
import { acceptEvent, type IngestedEvent } from './events';
import { BatchBody, type EventType } from './schemas';
import { countMetrics } from '../../ops/metrics';
import { validate } from '../validation';

export interface IngestRequest {
  /** The path's type: one of the six, or batch. */
  type: EventType | 'batch';
  body: Record<string, unknown>;
  authorization?: string;
  ip?: string;
}

/**
 * Successful write-key lookups are kept this long in the process: two reads saved per request. A disabled
 * source or a deleted one is refused within this time; an unknown key is never cached, so a new source
 * works at once.
 */
export const WRITE_KEY_CACHE_MS = 5000;
const WRITE_KEY_CACHE_SIZE = 10_000;

export interface IngestResult {
  accepted: number;
}

/**
 * Ingestion: authenticate the write key, check every event (a bad one refuses the whole request), and store
 * them durably (one write per request, the only store round trip once the write key is known) before
 * answering. The table's stream takes them on to delivery and to schema capture, which drop the events of
 * suppressed users (one index read per stream batch; see suppression-index.ts).
 */
export class IngestService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly ingest: IngestRepository,
  ) {}

  private readonly writeKeys = new Map<string, { until: number; found: { workspaceId: string; sourceId: string } }>();

  private async authenticate(request: IngestRequest) {
    const key = `${request.authorization ?? ''}\n${typeof request.body.writeKey === 'string' ? request.body.writeKey : ''}`;
    const cached = this.writeKeys.get(key);
    if (cached && cached.until > Date.now()) return cached.found;
    const found = await authenticateWriteKey(request.authorization, request.body.writeKey, this.catalog);
    if (this.writeKeys.size >= WRITE_KEY_CACHE_SIZE) this.writeKeys.clear();
    this.writeKeys.set(key, { until: Date.now() + WRITE_KEY_CACHE_MS, found });
    return found;
  }

  async accept(request: IngestRequest): Promise<IngestResult> {
    const { workspaceId, sourceId } = await this.authenticate(request);
    const receivedAt = new Date().toISOString();
    let events: IngestedEvent[];
    if (request.type === 'batch') {
      events = validate(BatchBody, request.body, 'body').batch.map((raw, i) => acceptEvent(raw, i, { receivedAt, ip: request.ip }));
    } else {
      const { writeKey: _writeKey, ...event } = request.body;
      events = [acceptEvent(event, 0, { type: request.type, receivedAt, ip: request.ip })];
    }
    await this.ingest.write({ workspaceId, sourceId, requestId: newId(), receivedAt, events });
    countMetrics({ EventsIngested: events.length });
    return { accepted: events.length };
  }
}
