import { CatalogService } from './domain/catalog/catalog-service';
import { CredentialService } from './domain/credentials/credential-service';
import { keyWrapperFromEnv } from './keys/key-wrappers';
import { BatchDelivery } from './domain/delivery/batch-delivery';
import { Circuit } from './domain/delivery/circuit';
import { DeliveryLanes } from './domain/delivery/lanes';
import { deliveryPolicyFromEnv } from './domain/delivery/policy';
import { ParkedRetries } from './domain/delivery/retries';
import { DeliveryRound } from './domain/delivery/round';
import { ScheduledDelivery } from './domain/delivery/scheduled-delivery';
import { StreamDelivery } from './domain/delivery/stream-delivery';
import { MonitoringService } from './domain/delivery/monitoring';
import { DeliveryAudit } from './domain/delivery/audit';
import { IngestService } from './domain/ingestion/ingest-service';
import { InboundLimits } from './domain/ingestion/inbound-limits';
import { SdkConfigService } from './domain/ingestion/sdk-config';
import { WriteKeys } from './domain/ingestion/write-keys';
import { DeletionRunner } from './domain/regulations/deletion-runner';
import { RegulationService } from './domain/regulations/regulation-service';
import type { Regulation } from './domain/regulations/schemas';
import { SuppressionIndex } from './domain/regulations/suppression-index';
import { SchemaCapture } from './domain/event-schemas/capture-service';
import { StreamCapture } from './domain/event-schemas/stream-capture';
import { forgetUser } from './domain/event-schemas/forget-user';
import { SchemaGovernance } from './domain/event-schemas/governance-service';
import { WorkspaceSchemas } from './domain/event-schemas/workspace-schemas';
import { ParkedRecords } from './domain/streams/parked-records';
import { PipelineTestService } from './domain/test-interface/test-service';
import { UserCodeService } from './domain/transformations/user-code-service';
import { PublishService } from './domain/transformations/publish';
import { TransformationTester } from './domain/transformations/testing';
import { CatalogRepository } from './persistence/catalog-repository';
import { UserCodeRepository } from './persistence/user-code-repository';
import { CredentialRepository } from './persistence/credential-repository';
import { DeletionJobRepository } from './persistence/deletion-job-repository';
import { DeliveryRepository } from './persistence/delivery-repository';
import { ParkedDeliveryRepository } from './persistence/parked-delivery-repository';
import { IngestRepository } from './persistence/ingest-repository';
import { ParkedRecordRepository } from './persistence/parked-record-repository';
import { RegulationRepository } from './persistence/regulation-repository';
import { EventSchemaRepository } from './persistence/event-schema-repository';
import { getTableClient, type TableClient } from './persistence/table-client';
import { WorkspaceRepository } from './persistence/workspace-repository';

/**
 * The composition root: every use case of Weir built over one store, the only place where services meet
 * their repositories. Each is made on first use, so a function builds only what its handler touches, and
 * once, so services that share a repository share the same one.
 */
/** One lane and one circuit per destination, for every delivery use case of a process and every store. */
export interface DeliveryMachinery {
  lanes: DeliveryLanes;
  circuit: Circuit;
}

let processDelivery: DeliveryMachinery | undefined;
/**
 * Per process, shared by every delivery use case in it (in the local runtime, the stream consumer's and the
 * scheduler's): one lane and one circuit per destination, reading the policy's waits as they are set.
 */
export const deliveryMachinery = (): DeliveryMachinery =>
  (processDelivery ??= {
    lanes: new DeliveryLanes(
      () => deliveryPolicyFromEnv().laneWaitMs,
      () => deliveryPolicyFromEnv().laneMaxWaitMs,
    ),
    circuit: new Circuit(() => deliveryPolicyFromEnv().circuitOpenMs),
  });

export function servicesOver(store: TableClient) {
  const made = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as T;
  };
  const repositories = {
    get catalog() {
      return once('catalogRepository', () => new CatalogRepository(store));
    },
    get code() {
      return once('codeRepository', () => new UserCodeRepository(store));
    },
    get credentials() {
      return once('credentialRepository', () => new CredentialRepository(store));
    },
    get deletionJobs() {
      return once('deletionJobRepository', () => new DeletionJobRepository(store));
    },
    get deliveries() {
      return once('deliveryRepository', () => new DeliveryRepository(store));
    },
    get parkedDeliveries() {
      return once('parkedDeliveryRepository', () => new ParkedDeliveryRepository(store));
    },
    get ingest() {
      return once('ingestRepository', () => new IngestRepository(store));
    },
    get parkedRecords() {
      return once('parkedRecordRepository', () => new ParkedRecordRepository(store));
    },
    get regulations() {
      return once('regulationRepository', () => new RegulationRepository(store));
    },
    get schemas() {
      return once('schemaRepository', () => new EventSchemaRepository(store));
    },
    get workspaces() {
      return once('workspaceRepository', () => new WorkspaceRepository(store));
    },
  };
  const r = repositories;
  return {
    repositories,
    get catalog() {
      return once('catalog', () => new CatalogService(r.catalog));
    },
    get credentials() {
      return once('credentials', () => new CredentialService(r.credentials, keyWrapperFromEnv()));
    },
    get publishing() {
      return once('publishing', () => new PublishService(r.code, new TransformationTester(r.code, this.credentials)));
    },
    get code() {
      return once('code', () => new UserCodeService(r.code, r.catalog, this.publishing));
    },
    get pipelineTests() {
      return once('pipelineTests', () => new PipelineTestService(r.catalog, r.code, this.credentials));
    },
    get suppression() {
      return once('suppression', () => new SuppressionIndex(r.regulations));
    },
    get regulations() {
      return once('regulations', () => new RegulationService(r.regulations, r.deletionJobs, r.catalog));
    },
    get deletions() {
      return once('deletions', () => new DeletionRunner(r.regulations, r.deletionJobs, r.catalog));
    },
    /** A deleted user's data leaves Weir's event schemas too (samples and frequent values). */
    forgetInSchemas: (regulation: Regulation) => forgetUser(r.schemas, r.catalog, regulation.workspaceId, regulation.attributes),
    get writeKeys() {
      return once('writeKeys', () => new WriteKeys(r.catalog));
    },
    /** Every source's inbound limit, as this process holds it. */
    get inboundLimits() {
      return once('inboundLimits', () => new InboundLimits(r.ingest));
    },
    get ingestion() {
      return once('ingestion', () => new IngestService(this.writeKeys, r.ingest, this.inboundLimits));
    },
    get sdkConfig() {
      return once('sdkConfig', () => new SdkConfigService(this.writeKeys));
    },
    get deliveryPolicy() {
      return once('deliveryPolicy', () => deliveryPolicyFromEnv());
    },
    /** One run of a batch, and the batches this process runs, for both delivery paths. */
    get batchDelivery() {
      const { lanes, circuit } = deliveryMachinery();
      return once('batchDelivery', () => new BatchDelivery(r.deliveries, lanes, circuit, this.deliveryPolicy));
    },
    /** What a delivery round reads once and shares between its parts and destinations. */
    newDeliveryRound() {
      return new DeliveryRound(r.code, this.credentials, r.parkedDeliveries);
    },
    /** Delivering a stream batch. */
    get delivery() {
      const { lanes, circuit } = deliveryMachinery();
      const round = () => this.newDeliveryRound();
      return once(
        'delivery',
        () => new StreamDelivery(r.catalog, r.ingest, r.deliveries, this.suppression, this.batchDelivery, round, lanes, circuit, this.deliveryPolicy),
      );
    },
    /** The scheduler's resume and retry. */
    get deliveryScheduler() {
      const { lanes, circuit } = deliveryMachinery();
      const round = () => this.newDeliveryRound();
      const retries = () => new ParkedRetries(r.catalog, r.parkedDeliveries, circuit, this.deliveryPolicy);
      return once(
        'deliveryScheduler',
        () => new ScheduledDelivery(r.catalog, r.ingest, r.deliveries, this.suppression, this.batchDelivery, retries(), round, lanes),
      );
    },
    get deliveryAudit() {
      return once('deliveryAudit', () => new DeliveryAudit(r.catalog, r.ingest, r.deliveries, r.parkedDeliveries, r.parkedRecords));
    },
    get monitoring() {
      return once('monitoring', () => new MonitoringService(r.catalog, r.ingest, r.deliveries, this.suppression));
    },
    get capture() {
      return once('capture', () => new SchemaCapture(r.schemas, r.catalog));
    },
    /** Capturing a stream batch: suppressed users' events left out, the rest captured. */
    get streamCapture() {
      return once('streamCapture', () => new StreamCapture(this.capture, this.suppression));
    },
    get governance() {
      return once('governance', () => new SchemaGovernance(r.schemas, r.catalog));
    },
    get workspaceSchemas() {
      return once('workspaceSchemas', () => new WorkspaceSchemas(r.schemas, r.catalog));
    },
    get parkedRecords() {
      return once('parkedRecords', () => new ParkedRecords(r.parkedRecords));
    },
  };
}

export type Services = ReturnType<typeof servicesOver>;

let processServices: Services | undefined;
/** The services of a Lambda (or local) process, over its store. */
export const services = (): Services => (processServices ??= servicesOver(getTableClient()));
