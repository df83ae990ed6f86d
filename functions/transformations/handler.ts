import { ValidationError } from '../../shared/domain/errors';
import { TRANSFORMATIONS_ROUTES } from '../../shared/contract/function-routes/transformations';
import { createHandler } from '../../shared/http/handler';
import { publishService, userCodeService } from '../../shared/composition/transformations';
import { services } from '../../shared/services';

const service = userCodeService(services());
const publishing = publishService(services());
const success = { success: true } as const;

/** `publish` may come as a query parameter or a body field; both at once must agree. */
function publishOf(query: { publish?: 'true' | 'false' }, body: { publish?: boolean }): boolean {
  const fromQuery = query.publish === undefined ? undefined : query.publish === 'true';
  if (fromQuery !== undefined && body.publish !== undefined && fromQuery !== body.publish) {
    throw new ValidationError(`publish: the query parameter says ${fromQuery} and the body says ${body.publish}`);
  }
  return body.publish ?? fromQuery ?? false;
}

export const handler = createHandler('transformations', TRANSFORMATIONS_ROUTES, {
  'POST /transformations': async ({ principal, query, body }) =>
    service.createTransformation(principal.workspaceId, { ...body, publish: publishOf(query, body) }),
  'GET /transformations': async ({ principal }) => ({ transformations: await service.listTransformations(principal.workspaceId) }),
  'GET /transformations/{id}': async ({ principal, params }) => service.getTransformation(principal.workspaceId, params.id),
  'POST /transformations/{id}': async ({ principal, params, query, body }) =>
    service.updateTransformation(principal.workspaceId, params.id, { ...body, publish: publishOf(query, body) }),
  'DELETE /transformations/{id}': async ({ principal, params }) => {
    await service.deleteTransformation(principal.workspaceId, params.id);
    return success;
  },
  'GET /transformations/{id}/versions': async ({ principal, params, query }) => ({
    TransformationVersions: await service.listTransformationVersions(principal.workspaceId, params.id, query),
  }),
  'GET /transformations/{id}/versions/{versionId}': async ({ principal, params }) =>
    service.getTransformationVersion(principal.workspaceId, params.id, params.versionId),

  'POST /libraries': async ({ principal, query, body }) => service.createLibrary(principal.workspaceId, { ...body, publish: publishOf(query, body) }),
  'GET /libraries': async ({ principal }) => ({ libraries: await service.listLibraries(principal.workspaceId) }),
  'GET /libraries/{id}': async ({ principal, params }) => service.getLibrary(principal.workspaceId, params.id),
  'POST /libraries/{id}': async ({ principal, params, query, body }) =>
    service.updateLibrary(principal.workspaceId, params.id, { ...body, publish: publishOf(query, body) }),
  'DELETE /libraries/{id}': async ({ principal, params }) => {
    await service.deleteLibrary(principal.workspaceId, params.id);
    return success;
  },
  'GET /libraries/{id}/versions': async ({ principal, params, query }) => ({
    libraryVersions: await service.listLibraryVersions(principal.workspaceId, params.id, query),
  }),
  'GET /libraries/{id}/versions/{versionId}': async ({ principal, params }) => service.getLibraryVersion(principal.workspaceId, params.id, params.versionId),

  'POST /transformations/libraries/publish': async ({ principal, body }) => publishing.publish(principal.workspaceId, body),
  'POST /transformations/libraries/test': async ({ principal, body }) => publishing.test(principal.workspaceId, body),
  'POST /transformations/publish': async ({ principal, body }) => publishing.publishSuites(principal.workspaceId, body),
  'POST /transformations/tests/run': async ({ principal, body }) => publishing.runSuites(principal.workspaceId, body),
});
