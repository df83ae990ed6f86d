import { PlanStage } from '../domain/tracking-plans/ingest-stage';
import { repository, type Services } from '../services';
import { TrackingPlanRepository } from '../persistence/tracking-plan-repository';

/** The plan stage of ingestion and of the test interface: each source's plan version compiled once per process. */
export const planStage = (s: Services) => s.once('planStage', () => new PlanStage(repository(s, TrackingPlanRepository)));
