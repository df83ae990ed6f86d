import { PlanStage } from '../domain/tracking-plans/ingest-stage';
import { TrackingPlanService } from '../domain/tracking-plans/plan-service';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { TrackingPlanRepository } from '../persistence/tracking-plan-repository';
import { workspaceSchemas } from './event-schemas';

export const trackingPlanService = (s: Services) =>
  s.once('trackingPlans', () => new TrackingPlanService(repository(s, TrackingPlanRepository), workspaceSchemas(s), repository(s, CatalogRepository)));

/** The plan stage of ingestion: each source's plan version compiled once per process. */
export const planStage = (s: Services) => s.once('planStage', () => new PlanStage(repository(s, TrackingPlanRepository)));
