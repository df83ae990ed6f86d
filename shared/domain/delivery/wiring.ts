import { CatalogRepository } from '../../persistence/catalog-repository';
import { CodeRepository } from '../../persistence/code-repository';
import { CredentialRepository } from '../../persistence/credential-repository';
import { CredentialService } from '../credentials/credential-service';
import { DeliveryRepository } from '../../persistence/delivery-repository';
import { IngestRepository } from '../../persistence/ingest-repository';
import type { Store } from '../../persistence/store';
import { DeliveryService } from './delivery-service';

/** Delivery over one store, as the functions (and tests) build it. */
export const deliveryOver = (store: Store) =>
  new DeliveryService(
    new CatalogRepository(store),
    new CodeRepository(store),
    new IngestRepository(store),
    new DeliveryRepository(store),
    new CredentialService(new CredentialRepository(store)),
  );
