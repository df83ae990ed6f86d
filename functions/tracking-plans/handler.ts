import { TRACKING_PLANS_ROUTES } from '../../shared/contract/function-routes/tracking-plans';
import { createHandler } from '../../shared/http/handler';
import { trackingPlanService } from '../../shared/composition/tracking-plans';
import { services } from '../../shared/services';

const plans = trackingPlanService(services());

/** Tracking plans: create (from specs or captured models), versions, diff, stats, and the sources held to them. */
export const handler = createHandler('trackingPlans', TRACKING_PLANS_ROUTES, {
  'GET /v2/tracking-plans': async ({ principal }) => plans.list(principal.workspaceId),
  'POST /v2/tracking-plans': async ({ principal, body }) => ({ trackingPlan: await plans.create(principal.workspaceId, body) }),
  'GET /v2/tracking-plans/{id}': async ({ principal, params }) => ({ trackingPlan: await plans.get(principal.workspaceId, params.id) }),
  'PUT /v2/tracking-plans/{id}': async ({ principal, params, body }) => ({ trackingPlan: await plans.update(principal.workspaceId, params.id, body) }),
  'GET /v2/tracking-plans/{id}/versions': async ({ principal, params }) => plans.versions(principal.workspaceId, params.id),
  'GET /v2/tracking-plans/{id}/versions/{version}': async ({ principal, params }) => ({
    version: await plans.version(principal.workspaceId, params.id, params.version),
  }),
  'GET /v2/tracking-plans/{id}/diff': async ({ principal, params, query }) => plans.diff(principal.workspaceId, params.id, query.from, query.to),
  'GET /v2/tracking-plans/{id}/stats': async ({ principal, params, query }) => plans.stats(principal.workspaceId, params.id, query),
  'GET /v2/sources/{id}/tracking-plan': async ({ principal, params }) => plans.link(principal.workspaceId, params.id),
  'PUT /v2/sources/{id}/tracking-plan': async ({ principal, params, body }) => ({ trackingPlan: await plans.connect(principal.workspaceId, params.id, body) }),
  'DELETE /v2/sources/{id}/tracking-plan': async ({ principal, params }) => plans.disconnect(principal.workspaceId, params.id),
});
