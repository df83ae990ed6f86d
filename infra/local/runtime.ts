import { deliveryMachinery } from '../../shared/composition/delivery';
import { inboundLimits } from '../../shared/composition/ingestion';
import { services } from '../../shared/services';
import type { Server } from 'node:http';
import { copyFileSync, existsSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import path from 'node:path';
import { STREAM_CONSUMERS } from '../../shared/contract/functions';
import { TABLE } from '../../shared/contract/table';
import { ensureBootstrapWorkspace, type WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { createTableClient } from '../../shared/persistence/table-client';
import { WorkspaceRepository } from '../../shared/persistence/workspace-repository';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { createGateway } from './gateway';
import { startLocalScheduler, type LocalScheduler } from './scheduler';
import { startStreamPoller, type PollerConsumer, type StreamPoller } from './stream-poller';
import { ensureTable } from './table';
import { componentLogger } from '../../shared/ops/logger';

const log = componentLogger('runtime');

/**
 * The whole service on one machine: DynamoDB Local (or a given endpoint), the table, the bootstrap
 * workspace, both planes' gateways and the stream poller. Used by `npm start` and by the tests.
 */
export interface RuntimeOptions {
  host?: string;
  /** 0 picks a free port. */
  controlPort: number;
  dataPort: number;
  /** Use this DynamoDB endpoint instead of starting DynamoDB Local. */
  dynamoEndpoint?: string;
  /** Where DynamoDB Local persists; undefined keeps everything in memory. */
  dataDir?: string;
  tableName?: string;
  bootstrap?: { email: string; token: string };
  admin: { user: string; password: string };
  /** Wraps the workspaces' credential data keys (base64, 32 bytes); in AWS a KMS key does. */
  credentialsKey?: string;
  /** Stream consumers; default: the registry in shared/contract/functions.ts. */
  consumers?: PollerConsumer[];
  checkpointFile?: string;
  /** How often scheduled functions run locally; default WEIR_SCHEDULER_INTERVAL_MS or 5 s; 0: only on `runNow`. */
  schedulerIntervalMs?: number;
}

export interface LocalRuntime {
  controlUrl: string;
  dataUrl: string;
  dynamoEndpoint: string;
  tableName: string;
  bootstrap?: WorkspaceCredentials;
  poller: StreamPoller;
  scheduler: LocalScheduler;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

function registryConsumers(): PollerConsumer[] {
  return Object.entries(STREAM_CONSUMERS).map(([name, consumer]) => ({
    name,
    filters: consumer.filters,
    batchSize: consumer.batchSize,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    handler: (event) => (require(path.join(ROOT, consumer.entry)) as { handler: PollerConsumer['handler'] }).handler(event),
  }));
}

/**
 * `checkpoints.json` → `checkpoints.<consumer>.json`. A consumer without its own file yet starts where the
 * shared file of earlier versions says, so an upgrade replays nothing.
 */
function consumerCheckpointFile(shared: string, consumer: string): string {
  const own = shared.replace(/(\.json)?$/, `.${consumer}.json`);
  if (!existsSync(own) && existsSync(shared)) copyFileSync(shared, own);
  return own;
}

/** How long a stop waits for requests in flight before it cuts their connections. */
const DRAIN_MS = 10_000;

function closeGracefully(server: Server, drainMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), drainMs);
    // A keep-alive connection turns idle once its answer is out: close those as they come.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(cut);
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}

async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return `http://${host}:${typeof address === 'object' && address ? address.port : port}`;
}

export async function startLocalRuntime(options: RuntimeOptions): Promise<LocalRuntime> {
  const host = options.host ?? '127.0.0.1';
  const tableName = options.tableName ?? TABLE.localName;
  let dynamo: DynamoDbLocal | undefined;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch((error: unknown) => log.error('stop failed', { error }));
    stops.length = 0;
  };

  try {
    if (!options.dynamoEndpoint) {
      dynamo = await startDynamoDbLocal({ dataDir: options.dataDir });
      stops.push(() => dynamo?.stop() ?? Promise.resolve());
    }
    const dynamoEndpoint = options.dynamoEndpoint ?? dynamo?.endpoint ?? '';

    // The handlers read their configuration from the environment, exactly as in Lambda.
    process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamoEndpoint;
    process.env.AWS_ENDPOINT_URL_DYNAMODB_STREAMS = dynamoEndpoint;
    process.env.AWS_REGION ??= 'local';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    process.env.WEIR_TABLE = tableName;
    process.env.WEIR_ADMIN_USER = options.admin.user;
    process.env.WEIR_ADMIN_PASSWORD = options.admin.password;
    // The local scheduler runs its functions one after the other every few seconds: a replay's run is short.
    process.env.WEIR_REPLAY_RUN_MS ??= '3000';
    if (options.credentialsKey) process.env.WEIR_CREDENTIALS_KEY = options.credentialsKey;

    const client = new DynamoDBClient({ endpoint: dynamoEndpoint });
    stops.push(async () => client.destroy());
    const streamArn = await ensureTable(client, tableName);
    const bootstrap = options.bootstrap
      ? await ensureBootstrapWorkspace(new WorkspaceRepository(createTableClient({ client, table: tableName })), options.bootstrap)
      : undefined;

    const streams = new DynamoDBStreamsClient({ endpoint: dynamoEndpoint });
    // One poller per consumer, each with its own checkpoints, as each has its own event source mapping in
    // AWS: a consumer that is slow or failing delays no other.
    const pollers = (options.consumers ?? registryConsumers()).map((consumer) =>
      startStreamPoller({
        client: streams,
        streamArn,
        consumers: [consumer],
        checkpointFile: options.checkpointFile && consumerCheckpointFile(options.checkpointFile, consumer.name),
      }),
    );
    // Drained means handed over and done: the work consumers gave to delivery lanes has run too.
    const poller: StreamPoller = {
      stop: async () => void (await Promise.all(pollers.map((p) => p.stop()))),
      drain: async () => {
        await Promise.all(pollers.map((p) => p.drain()));
        await deliveryMachinery().lanes.idle();
      },
    };
    stops.push(async () => {
      await poller.stop();
      // Deliveries in flight finish; those not begun hand their claims back for the next start.
      await deliveryMachinery().lanes.stop();
      streams.destroy();
    });

    const timer = startLocalScheduler(options.schedulerIntervalMs ?? (Number(process.env.WEIR_SCHEDULER_INTERVAL_MS) || 5000));
    const scheduler: LocalScheduler = {
      ...timer,
      runNow: async () => {
        await timer.runNow();
        await deliveryMachinery().lanes.idle();
      },
    };
    stops.push(() => scheduler.stop());

    const control = createGateway('control');
    const data = createGateway('data');
    // Stopping closes the data plane first (ingestion), then the control plane: each stops accepting, lets
    // the requests in flight get their answer (an acknowledged event is stored), and cuts what is left after
    // the drain time. Then the scheduler, the consumers, and the store last.
    // Once ingestion has stopped, the requests it refused over their sources' limits are counted.
    stops.push(() => inboundLimits(services()).flush());
    for (const server of [control, data]) stops.push(() => closeGracefully(server, DRAIN_MS));
    const controlUrl = await listen(control, host, options.controlPort);
    const dataUrl = await listen(data, host, options.dataPort);
    return { controlUrl, dataUrl, dynamoEndpoint, tableName, bootstrap, poller, scheduler, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
