import { CATALOG_ROUTES } from '../../shared/contract/function-routes/catalog';
import { createHandler } from '../../shared/http/handler';
import { catalogService, rulesDryRun } from '../../shared/composition/catalog';
import { services } from '../../shared/services';

const catalog = catalogService(services());
const dryRun = rulesDryRun(services());
const success = { success: true } as const;

export const handler = createHandler('catalog', CATALOG_ROUTES, {
  'GET /v2/sources': async ({ principal }) => ({ sources: await catalog.listSources(principal.workspaceId) }),
  'POST /v2/sources': async ({ principal, body }) => ({ source: await catalog.createSource(principal.workspaceId, body) }),
  'GET /v2/sources/{id}': async ({ principal, params }) => ({ source: await catalog.getSource(principal.workspaceId, params.id) }),
  'PATCH /v2/sources/{id}': async ({ principal, params, body }) => ({
    source: await catalog.patchSource(principal.workspaceId, params.id, body),
  }),
  'DELETE /v2/sources/{id}': async ({ principal, params }) => {
    await catalog.deleteSource(principal.workspaceId, params.id);
    return success;
  },

  'GET /v2/destinations': async ({ principal }) => ({ destinations: await catalog.listDestinations(principal.workspaceId) }),
  'POST /v2/destinations': async ({ principal, body }) => ({
    destination: await catalog.createDestination(principal.workspaceId, body),
  }),
  'GET /v2/destinations/{id}': async ({ principal, params }) => ({
    destination: await catalog.getDestination(principal.workspaceId, params.id),
  }),
  'PATCH /v2/destinations/{id}': async ({ principal, params, body }) => ({
    destination: await catalog.patchDestination(principal.workspaceId, params.id, body),
  }),
  'DELETE /v2/destinations/{id}': async ({ principal, params }) => {
    await catalog.deleteDestination(principal.workspaceId, params.id);
    return success;
  },

  'GET /v2/connections': async ({ principal }) => ({ connections: await catalog.listConnections(principal.workspaceId) }),
  'POST /v2/connections': async ({ principal, body }) => ({
    connection: await catalog.createConnection(principal.workspaceId, body),
  }),
  'GET /v2/connections/{id}': async ({ principal, params }) => ({
    connection: await catalog.getConnection(principal.workspaceId, params.id),
  }),
  'PUT /v2/connections/{id}/rules': async ({ principal, params, body }) => ({
    connection: await catalog.setConnectionRules(principal.workspaceId, params.id, body.rules),
  }),
  'POST /v2/connections/{id}/rules/dry-run': async ({ principal, params, body }) => dryRun.run(principal.workspaceId, params.id, body),
  'DELETE /v2/connections/{id}': async ({ principal, params }) => {
    await catalog.deleteConnection(principal.workspaceId, params.id);
    return success;
  },
});
