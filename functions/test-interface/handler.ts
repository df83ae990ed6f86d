import { PipelineTestService } from '../../shared/domain/test-interface/test-service';
import { createHandler } from '../../shared/http/handler';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { CodeRepository } from '../../shared/persistence/code-repository';
import { getStore } from '../../shared/persistence/store';

const tests = new PipelineTestService(new CatalogRepository(getStore()), new CodeRepository(getStore()));

export const handler = createHandler('testInterface', {
  'POST /v0/testDestination/{destination_id}': async ({ principal, params, query, body }) =>
    tests.testDestination(principal.workspaceId, params.destination_id, body.message, {
      stage: body.stage,
      force: query.force === 'true',
      destinationConfig: body.destinationConfig,
    }),
  'POST /v0/testSource/{source_id}': async ({ principal, params, query, body }) =>
    tests.testSource(principal.workspaceId, params.source_id, body.message, { stage: body.stage, force: query.force === 'true' }),
});
