import { TRACKING_PLAN_VIEWS_ROUTES } from '../../shared/contract/function-routes/tracking-plan-views';
import { createHandler } from '../../shared/http/handler';
import { planViews } from '../../shared/composition/plan-views';
import { services } from '../../shared/services';

const views = planViews(services());

/** A tracking plan over time: its series and its newest offending events. */
export const handler = createHandler('planViews', TRACKING_PLAN_VIEWS_ROUTES, {
  'GET /v2/tracking-plans/{id}/series': async ({ principal, params, query }) => views.series(principal.workspaceId, params.id, query),
  'GET /v2/tracking-plans/{id}/violations': async ({ principal, params, query }) => views.violations(principal.workspaceId, params.id, query),
});
