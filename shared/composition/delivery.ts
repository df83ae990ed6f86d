import { BatchDelivery } from '../domain/delivery/batch-delivery';
import { Circuit } from '../domain/delivery/circuit';
import { DeliveryLanes } from '../domain/delivery/lanes';
import { deliveryPolicyFromEnv } from '../domain/delivery/policy';
import { ParkedRetries } from '../domain/delivery/retries';
import { DeliveryRound } from '../domain/delivery/round';
import { ScheduledDelivery } from '../domain/delivery/scheduled-delivery';
import { StreamDelivery } from '../domain/delivery/stream-delivery';
import { ShardSwitch } from '../domain/delivery/shard-switch';
import { repository, type Services } from '../services';
import { credentialService } from './credentials';
import { CatalogRepository } from '../persistence/catalog-repository';
import { UserCodeRepository } from '../persistence/user-code-repository';
import { DeliveryRepository } from '../persistence/delivery-repository';
import { IngestRepository } from '../persistence/ingest-repository';
import { ParkedDeliveryRepository } from '../persistence/parked-delivery-repository';
import { duplicateFilter } from './duplicates';
import { sourcesOf } from './sources';
import { suppressionIndex } from './suppression';
import { parseSeq } from '../domain/delivery/batch-run';
import type { ParkedDelivery } from '../domain/delivery/records';
import { RetryJobs } from '../domain/delivery/retry-jobs';
import { FailureRepository } from '../persistence/failure-repository';
import { SourceFunnelRepository } from '../persistence/source-funnel';

let processDelivery: { lanes: DeliveryLanes; circuit: Circuit } | undefined;
/**
 * Per process, shared by every delivery use case in it (in the local runtime, the stream consumer's and the
 * scheduler's): one lane and one circuit per destination, reading the policy's waits as they are set.
 */
export const deliveryMachinery = () =>
  (processDelivery ??= {
    lanes: new DeliveryLanes(
      () => deliveryPolicyFromEnv().laneWaitMs,
      () => deliveryPolicyFromEnv().laneMaxWaitMs,
    ),
    circuit: new Circuit(() => deliveryPolicyFromEnv().circuitOpenMs),
  });

const deliveryPolicy = (s: Services) => s.once('deliveryPolicy', () => deliveryPolicyFromEnv());

/** One run of a batch, and the batches this process runs, for both delivery paths. */
export const batchDelivery = (s: Services) => {
  const { lanes, circuit } = deliveryMachinery();
  return s.once('batchDelivery', () => new BatchDelivery(repository(s, DeliveryRepository), lanes, circuit, deliveryPolicy(s)));
};

/** What a delivery round reads once and shares between its parts and destinations. */
export const newDeliveryRound = (s: Services) =>
  new DeliveryRound(repository(s, UserCodeRepository), credentialService(s), repository(s, ParkedDeliveryRepository), repository(s, CatalogRepository));

/** Delivering a stream batch. */
export const streamDelivery = (s: Services) => {
  const { lanes, circuit } = deliveryMachinery();
  return s.once(
    'delivery',
    () =>
      new StreamDelivery(
        repository(s, CatalogRepository),
        repository(s, IngestRepository),
        repository(s, DeliveryRepository),
        suppressionIndex(s),
        batchDelivery(s),
        () => newDeliveryRound(s),
        lanes,
        circuit,
        deliveryPolicy(s),
        repository(s, SourceFunnelRepository),
        new ShardSwitch(
          sourcesOf(s),
          repository(s, IngestRepository),
          repository(s, DeliveryRepository),
          duplicateFilter(s),
          deliveryPolicy(s).shardSwitchWaitMs,
        ),
        duplicateFilter(s),
      ),
  );
};

/** The scheduler's resume and retry. */
export const scheduledDelivery = (s: Services) => {
  const { lanes, circuit } = deliveryMachinery();
  const ingest = repository(s, IngestRepository);
  const original = async (parked: ParkedDelivery) => {
    const seq = parseSeq(parked.seq);
    return (await ingest.readPart(parked.workspaceId, parked.sourceId, seq.requestId, seq.part))?.[seq.index];
  };
  const retries = () =>
    new ParkedRetries(repository(s, CatalogRepository), repository(s, ParkedDeliveryRepository), circuit, deliveryPolicy(s), credentialService(s), original);
  return s.once(
    'deliveryScheduler',
    () =>
      new ScheduledDelivery(
        repository(s, CatalogRepository),
        repository(s, IngestRepository),
        repository(s, DeliveryRepository),
        suppressionIndex(s),
        batchDelivery(s),
        retries(),
        () => newDeliveryRound(s),
        lanes,
        duplicateFilter(s),
      ),
  );
};

/** The retry jobs the scheduler runs a slice of each round. */
export const retryJobs = (s: Services) => {
  const { circuit } = deliveryMachinery();
  return s.once(
    'retryJobs',
    () => new RetryJobs(repository(s, CatalogRepository), repository(s, FailureRepository), suppressionIndex(s), circuit, credentialService(s)),
  );
};
