import { CredentialService } from '../../shared/domain/credentials/credential-service';
import { PipelineTestService } from '../../shared/domain/test-interface/test-service';
import { createHandler } from '../../shared/http/handler';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { CodeRepository } from '../../shared/persistence/code-repository';
import { CredentialRepository } from '../../shared/persistence/credential-repository';
import { getStore } from '../../shared/persistence/store';

const store = getStore();
const tests = new PipelineTestService(new CatalogRepository(store), new CodeRepository(store), new CredentialService(new CredentialRepository(store)));

export const handler = createHandler('testInterface', {
  'POST /v0/testDestination/{destination_id}': async ({ principal, params, query, body }) =>
    tests.testDestination(principal.workspaceId, params.destination_id, body.message, {
      stage: body.stage,
      force: query.force === 'true',
      destinationConfig: body.destinationConfig,
      credentials: body.credentials,
    }),
  'POST /v0/testSource/{source_id}': async ({ principal, params, query, body }) =>
    tests.testSource(principal.workspaceId, params.source_id, body.message, {
      stage: body.stage,
      force: query.force === 'true',
      credentials: body.credentials,
    }),
});
