/**
 * Every Lambda of Weir: endpoint groups, authorizers and stream consumers. The CDK stacks create one
 * function per entry, the local runtime loads the same files. Paths are relative to the repository root.
 */
export type Plane = 'control' | 'data';

/**
 * What a function may do with the credentials key (KMS in AWS): `read` unwraps data keys to decrypt values
 * for getCredential; `write` also makes data keys. Functions without it get no rights on the key at all.
 */
export type CredentialsAccess = 'read' | 'write';

/** An endpoint group's function: its plane, its handler file, whether it runs user code, its credentials access. */
export interface EndpointFunction<P extends Plane = Plane> {
  plane: P;
  entry: string;
  usesSandbox?: true;
  credentials?: CredentialsAccess;
}

/** The function whose handler is `functions/<dir>/handler.ts`. */
const endpoint = <P extends Plane>(plane: P, dir: string, more: Pick<EndpointFunction, 'usesSandbox' | 'credentials'> = {}): EndpointFunction<P> => ({
  plane,
  entry: `functions/${dir}/handler.ts`,
  ...more,
});

export const ENDPOINT_FUNCTIONS = {
  controlMeta: endpoint('control', 'control-meta'),
  destinationDefinitions: endpoint('control', 'destination-definitions'),
  catalog: endpoint('control', 'catalog'),
  transformations: endpoint('control', 'transformations', { usesSandbox: true, credentials: 'read' }),
  testInterface: endpoint('control', 'test-interface', { usesSandbox: true, credentials: 'read' }),
  regulations: endpoint('control', 'regulations'),
  replays: endpoint('control', 'replays'),
  alerts: endpoint('control', 'alerts'),
  monitoring: endpoint('control', 'monitoring'),
  credentials: endpoint('control', 'credentials', { credentials: 'write' }),
  eventSchemas: endpoint('control', 'event-schemas'),
  trackingPlans: endpoint('control', 'tracking-plans'),
  planViews: endpoint('control', 'plan-views'),
  dataMeta: endpoint('data', 'data-meta'),
  ingest: endpoint('data', 'ingest'),
  sdkConfig: endpoint('data', 'sdk-config'),
  governance: endpoint('data', 'governance'),
  parkedRecords: endpoint('data', 'parked-records'),
  deliveryAudit: endpoint('data', 'delivery-audit'),
};

export type FunctionName = keyof typeof ENDPOINT_FUNCTIONS;

/**
 * Authorizers. `account` takes Basic `email:token` or Bearer `token` (areas A and C), `bearer` only Bearer
 * (area B and the /v2 catalog), `admin` the data plane's admin user and password (area D).
 */
export const AUTHORIZERS = {
  account: { plane: 'control', entry: 'functions/authorizers/account.ts' },
  bearer: { plane: 'control', entry: 'functions/authorizers/bearer.ts' },
  admin: { plane: 'data', entry: 'functions/authorizers/admin.ts' },
} as const satisfies Record<string, { plane: Plane; entry: string }>;

export type AuthorizerName = keyof typeof AUTHORIZERS;

/**
 * Stream consumers: each receives the table's stream records that match its filter (the same filter object
 * becomes the Lambda event-source FilterCriteria in CDK and is applied by the local poller).
 */
export interface StreamConsumer {
  entry: string;
  /** DynamoDB Streams event patterns, as Lambda FilterCriteria take them: a record matching any is handed over. */
  filters: Record<string, unknown>[];
  /**
   * Records per invocation. A batch that fails is handed over again from its first failed record until it
   * succeeds (unlimited retries): a consumer parks a record that fails for itself (shared/domain/streams), so
   * what fails here is the store, and nothing may be skipped.
   */
  batchSize: number;
  /**
   * In AWS, how long records gather before an invocation (Lambda's MaximumBatchingWindowInSeconds): fewer,
   * fuller batches for a consumer whose cost is per batch. The local poller hands records over at once.
   */
  batchingWindowSeconds?: number;
  /**
   * In AWS, how many batches of one shard run at once (Lambda's ParallelizationFactor); records with the same
   * partition key (an ingest item's: one source) still go in order, one batch after the other.
   */
  parallelizationFactor?: number;
  /** Runs user code: gets the sandbox's memory, time-out and worker bundle. */
  usesSandbox?: boolean;
  credentials?: CredentialsAccess;
}

/** The stream records of accepted events (one per stored ingestion item): delivery and schema capture read them. */
export const ACCEPTED_EVENTS_FILTER = { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['ingest'] } } } };

/** A parked record of this consumer put to replay (by the scheduler or an operator) comes back to it. */
export const parkedRecordFilter = (consumer: string) => ({
  eventName: ['MODIFY'],
  dynamodb: { NewImage: { entity: { S: ['parkedRecord'] }, consumer: { S: [consumer] }, status: { S: ['replaying'] } } },
});

export const STREAM_CONSUMERS: Record<string, StreamConsumer> = {
  regulationProcessor: {
    entry: 'functions/regulation-processor/handler.ts',
    filters: [{ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['regulation'] } } } }, parkedRecordFilter('regulationProcessor')],
    batchSize: 25,
    // A destination's secret may name a workspace credential: deleting users there reads its value.
    credentials: 'read',
  },
  /**
   * Accepted events on their way to destinations. No batching window: latency is what a destination's user
   * sees. A batch of up to 50 parts is a delivery round: it shares its reads (batch items in one BatchGet, each
   * transformation's code, the connections' rules and the credentials once, whether anything is parked at each
   * destination), and a source's parts run together at each destination: transformed together, a vendor with
   * a batch API getting them in one request, finished in one write of the counters. A source with many ingest
   * shards stores a request as many small parts, so the rounds, not the events, set how often the workspace's
   * partition and the counter shards are read: at 50 parts, one source at 50,000 events a second in 64 shards
   * keeps each under 2,400 read units a second (at 25 they took 7,034 and 3,426; docs/performance/history.md, "What a delivery round
   * reads"). Four batches per shard at once: sources go side by side, each source's parts in order.
   */
  delivery: {
    entry: 'functions/delivery/handler.ts',
    filters: [ACCEPTED_EVENTS_FILTER, parkedRecordFilter('delivery')],
    batchSize: 50,
    parallelizationFactor: 4,
    usesSandbox: true,
    credentials: 'read',
  },
  /**
   * Accepted events into event models and versions (area D). Its cost is per batch and model, not per event,
   * so in AWS it takes large batches (Lambda cuts them at its 6 MB payload) gathered for up to 30 s: of 1,000
   * stored parts, a source's schema partition takes about 250 write units a second at 50,000 events a second
   * (of 200, about 1,200: more than a partition should).
   */
  schemaCapture: {
    entry: 'functions/schema-capture/handler.ts',
    filters: [ACCEPTED_EVENTS_FILTER, parkedRecordFilter('schemaCapture')],
    batchSize: 1000,
    batchingWindowSeconds: 30,
  },
};

/**
 * Functions that run on a schedule: in AWS an EventBridge rule at `everySeconds` (at least a minute), locally
 * the runtime's timer (WEIR_SCHEDULER_INTERVAL_MS, default 5 s, so local retries are prompt).
 */
export interface ScheduledFunction {
  entry: string;
  everySeconds: number;
  usesSandbox?: boolean;
  credentials?: CredentialsAccess;
}

export const SCHEDULED_FUNCTIONS: Record<string, ScheduledFunction> = {
  /** A destination's secret may name a workspace credential: deleting users there reads its value. */
  deletionScheduler: { entry: 'functions/deletion-scheduler/handler.ts', everySeconds: 60, credentials: 'read' },
  deliveryScheduler: { entry: 'functions/delivery-scheduler/handler.ts', everySeconds: 60, usesSandbox: true, credentials: 'read' },
  /** Running replays send their next stored parts. */
  replayRunner: { entry: 'functions/replay-runner/handler.ts', everySeconds: 60, usesSandbox: true, credentials: 'read' },
  /** Alert rules are read against the counters; a change of state is sent to the rule's channel. */
  alertEvaluator: { entry: 'functions/alert-evaluator/handler.ts', everySeconds: 60 },
  /** Parked stream records that are due go back to their consumer (through the stream). */
  parkedRecordsScheduler: { entry: 'functions/parked-records-scheduler/handler.ts', everySeconds: 60 },
};

/** Per-plane API settings, shared by API Gateway (gateway responses) and the local gateway. */
export const PLANES = {
  control: {
    description: 'Weir control plane',
    defaultPort: 3000,
    portVariable: 'PORT',
    /** What a refused authorizer answers; `$context.authorizer.error` is the authorizer's reason. */
    refused: {
      statusCode: 401,
      contentType: 'application/json',
      template: '{"error":"$context.authorizer.error"}',
      headers: { 'WWW-Authenticate': 'Basic realm="weir"' },
    },
  },
  data: {
    description: 'Weir data plane',
    defaultPort: 8080,
    portVariable: 'DATA_PLANE_PORT',
    refused: {
      statusCode: 400,
      contentType: 'text/plain; charset=utf-8',
      template: '$context.authorizer.error',
      headers: {},
    },
  },
} as const;

/**
 * What API Gateway answers when an authorizer fails with "Unauthorized" (UNAUTHORIZED gateway response):
 * there is no authorizer decision then, so no `$context.authorizer.error` to show.
 */
export const UNAUTHORIZED_MESSAGE = 'Authorization header is missing or invalid';

/** Largest request body a handler accepts (API Gateway's own limit is 10 MB). */
export const MAX_BODY_BYTES = 1024 * 1024;
