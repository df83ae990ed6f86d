import { PlanViews } from '../domain/tracking-plans/plan-views';
import { repository, type Services } from '../services';
import { IngestRepository } from '../persistence/ingest-repository';
import { PlanSeriesRepository } from '../persistence/plan-items';
import { TrackingPlanRepository } from '../persistence/tracking-plan-repository';
import { suppressionIndex } from './suppression';

/** A plan over time: its hourly counters and its sources' live events. */
export const planViews = (s: Services) =>
  s.once(
    'planViews',
    () => new PlanViews(repository(s, TrackingPlanRepository), repository(s, PlanSeriesRepository), repository(s, IngestRepository), suppressionIndex(s)),
  );
