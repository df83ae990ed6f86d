import { PublishService } from '../domain/transformations/publish';
import { TransformationTester } from '../domain/transformations/testing';
import { UserCodeService } from '../domain/transformations/user-code-service';
import { repository, type Services } from '../services';
import { credentialService } from './credentials';
import { CatalogRepository } from '../persistence/catalog-repository';
import { UserCodeRepository } from '../persistence/user-code-repository';

export const publishService = (s: Services) =>
  s.once(
    'publishing',
    () => new PublishService(repository(s, UserCodeRepository), new TransformationTester(repository(s, UserCodeRepository), credentialService(s))),
  );

export const userCodeService = (s: Services) =>
  s.once('code', () => new UserCodeService(repository(s, UserCodeRepository), repository(s, CatalogRepository), publishService(s)));
