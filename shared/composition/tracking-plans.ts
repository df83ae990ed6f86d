import { TrackingPlanService } from '../domain/tracking-plans/plan-service';
import { repository, type Services } from '../services';
import { CatalogRepository } from '../persistence/catalog-repository';
import { TrackingPlanRepository } from '../persistence/tracking-plan-repository';
import { workspaceSchemas } from './event-schemas';

export const trackingPlanService = (s: Services) =>
  s.once('trackingPlans', () => new TrackingPlanService(repository(s, TrackingPlanRepository), workspaceSchemas(s), repository(s, CatalogRepository)));
