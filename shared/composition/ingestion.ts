import { InboundLimits } from '../domain/ingestion/inbound-limits';
import { IngestService } from '../domain/ingestion/ingest-service';
import { writeKeys } from './write-keys';
import { repository, type Services } from '../services';
import { IngestRepository } from '../persistence/ingest-repository';
import { planItems } from '../persistence/plan-items';
import { planStage } from './plan-stage';

/** Every source's inbound limit, as this process holds it. */
export const inboundLimits = (s: Services) => s.once('inboundLimits', () => new InboundLimits(repository(s, IngestRepository)));

/** Ingestion's writes: the stored events with what their tracking plan adds (plan-items.ts). */
const ingestWrites = (s: Services) => s.once('ingestWrites', () => new IngestRepository(s.store, planItems));

export const ingestService = (s: Services) => s.once('ingestion', () => new IngestService(writeKeys(s), ingestWrites(s), inboundLimits(s), planStage(s)));
