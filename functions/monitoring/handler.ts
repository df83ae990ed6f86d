import { MONITORING_ROUTES } from '../../shared/contract/function-routes/monitoring';
import { createHandler } from '../../shared/http/handler';
import { withPaging } from '../../shared/http/paging';
import { deliveryOverview, failuresService, monitoringService } from '../../shared/composition/monitoring';
import { services } from '../../shared/services';

const monitoring = monitoringService(services());
const overview = deliveryOverview(services());
const failures = failuresService(services());

export const handler = createHandler('monitoring', MONITORING_ROUTES, {
  'GET /v2/destinations/{id}/outcomes': async ({ principal, params }) => monitoring.outcomes(principal.workspaceId, params.id),
  'GET /v2/sources/{id}/live-events': async ({ principal, params, query }) =>
    withPaging(`/v2/sources/${encodeURIComponent(params.id)}/live-events`, await monitoring.sourceEvents(principal.workspaceId, params.id, query)),
  'GET /v2/destinations/{id}/live-events': async ({ principal, params, query }) => monitoring.destinationEvents(principal.workspaceId, params.id, query),
  'GET /v2/destinations/{id}/delivery': async ({ principal, params, query }) => overview.destination(principal.workspaceId, params.id, query),
  'GET /v2/sources/{id}/delivery': async ({ principal, params, query }) => overview.source(principal.workspaceId, params.id, query),
  'GET /v2/destinations/{id}/series': async ({ principal, params, query }) => overview.destinationSeries(principal.workspaceId, params.id, query),
  'GET /v2/sources/{id}/series': async ({ principal, params, query }) => overview.sourceSeries(principal.workspaceId, params.id, query),
  'GET /v2/destinations/{id}/failures': async ({ principal, params, query }) => failures.list(principal.workspaceId, params.id, query),
  'POST /v2/destinations/{id}/failures/retry': async ({ principal, params, body }) => failures.retry(principal.workspaceId, params.id, body),
  'GET /v2/destinations/{id}/jobs/{jobId}': async ({ principal, params }) => failures.job(principal.workspaceId, params.id, params.jobId),
});
