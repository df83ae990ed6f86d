import { CredentialService } from '../domain/credentials/credential-service';
import { keyWrapperFromEnv } from '../keys/key-wrappers';
import { repository, type Services } from '../services';
import { CredentialRepository } from '../persistence/credential-repository';

export const credentialService = (s: Services) => s.once('credentials', () => new CredentialService(repository(s, CredentialRepository), keyWrapperFromEnv()));
