import { TEST_INTERFACE_ROUTES } from '../../shared/contract/function-routes/test-interface';
import { createHandler } from '../../shared/http/handler';
import { pipelineTestService } from '../../shared/composition/test-interface';
import { services } from '../../shared/services';

const tests = pipelineTestService(services());

export const handler = createHandler('testInterface', TEST_INTERFACE_ROUTES, {
  'POST /v0/testDestination/{destination_id}': async ({ principal, params, query, body }) =>
    tests.testDestination(principal.workspaceId, params.destination_id, body.message, {
      stage: body.stage,
      force: query.force === 'true',
      destinationConfig: body.destinationConfig,
      credentials: body.credentials,
      sourceId: body.sourceId,
    }),
  'POST /v0/testSource/{source_id}': async ({ principal, params, query, body }) =>
    tests.testSource(principal.workspaceId, params.source_id, body.message, {
      stage: body.stage,
      force: query.force === 'true',
      credentials: body.credentials,
    }),
});
