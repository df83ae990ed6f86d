import { PipelineTestService } from '../domain/test-interface/test-service';
import { CatalogRepository } from '../persistence/catalog-repository';
import { UserCodeRepository } from '../persistence/user-code-repository';
import { repository, type Services } from '../services';
import { credentialService } from './credentials';
import { planStage } from './plan-stage';

/** The test interface: a sample event through a destination's stages, user code included. */
export const pipelineTestService = (s: Services) =>
  s.once(
    'pipelineTests',
    () => new PipelineTestService(repository(s, CatalogRepository), repository(s, UserCodeRepository), credentialService(s), planStage(s)),
  );
