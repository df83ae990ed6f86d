import { InboundLimits } from '../domain/ingestion/inbound-limits';
import { IngestService } from '../domain/ingestion/ingest-service';
import { writeKeys } from './write-keys';
import { repository, type Services } from '../services';
import { IngestRepository } from '../persistence/ingest-repository';
import { planStage } from './plan-stage';

/** Every source's inbound limit, as this process holds it. */
export const inboundLimits = (s: Services) => s.once('inboundLimits', () => new InboundLimits(repository(s, IngestRepository)));

export const ingestService = (s: Services) =>
  s.once('ingestion', () => new IngestService(writeKeys(s), repository(s, IngestRepository), inboundLimits(s), planStage(s)));
