import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Command, CommanderError } from 'commander';
import { DomainError } from '../../shared/domain/errors';
import { createToken, createWorkspace, revokeToken } from '../../shared/domain/auth/workspaces';
import { AuditQuery, DeliveryAudit } from '../../shared/domain/delivery/audit';
import { ParkedRecords } from '../../shared/domain/streams/parked-records';
import { validate } from '../../shared/domain/validation';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { StoredEventsRepository } from '../../shared/persistence/stored-events';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { createTableClient, type TableClient } from '../../shared/persistence/table-client';
import { WorkspaceRepository } from '../../shared/persistence/workspace-repository';
import { readRuntimeInfo } from './settings';

/**
 * `npm run --silent admin -- <command>`: workspace and token administration, straight on the table.
 * Target: --endpoint/--table, else AWS_ENDPOINT_URL_DYNAMODB/WEIR_TABLE, else the running local instance
 * (.weir/runtime.json), else a deployed table through the AWS credentials of the environment.
 * Every command prints one JSON line.
 */
interface Target {
  endpoint?: string;
  table?: string;
}

function storeOf(target: Target): TableClient {
  const running = readRuntimeInfo();
  const endpoint = target.endpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB ?? (target.table ? undefined : running?.dynamoEndpoint);
  const table = target.table ?? process.env.WEIR_TABLE ?? running?.tableName;
  if (!table) throw new DomainError('no table: start Weir with `npm start`, or pass --table (and --endpoint)');
  const local = endpoint?.startsWith('http://127.0.0.1') || endpoint?.startsWith('http://localhost');
  const client = new DynamoDBClient({
    ...(endpoint && { endpoint }),
    ...(local && { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  return createTableClient({ client, table });
}

const repository = (target: Target) => new WorkspaceRepository(storeOf(target));
const parkedRecords = (target: Target) => new ParkedRecords(new ParkedRecordRepository(storeOf(target)));

const deliveryAudit = (target: Target) => {
  const store = storeOf(target);
  return new DeliveryAudit(
    new CatalogRepository(store),
    new StoredEventsRepository(store),
    new DeliveryRepository(store),
    new ParkedDeliveryRepository(store),
    new ParkedRecordRepository(store),
  );
};

const print = (value: unknown) => console.log(JSON.stringify(value));

const program = new Command('admin')
  .description('Weir administration: workspaces, personal access tokens, parked stream records and the delivery audit')
  .option('--endpoint <url>', 'DynamoDB endpoint (default: the running local instance)')
  .option('--table <name>', 'table name (default: the running local instance)')
  .showHelpAfterError()
  .exitOverride();

const workspace = program.command('workspace').description('workspaces');
workspace
  .command('create')
  .description('create a workspace with a user and a first token')
  .requiredOption('--name <name>', 'workspace name')
  .requiredOption('--email <email>', "the user's email (Basic auth user name)")
  .action(async (options: { name: string; email: string }) => {
    print(await createWorkspace(repository(program.opts<Target>()), options));
  });

const token = program.command('token').description('personal access tokens');
token
  .command('create')
  .description('issue another token for a user of a workspace')
  .requiredOption('--workspace <id>', 'workspace id')
  .requiredOption('--email <email>', "the user's email")
  .action(async (options: { workspace: string; email: string }) => {
    print(await createToken(repository(program.opts<Target>()), { workspaceId: options.workspace, email: options.email }));
  });
token
  .command('revoke')
  .description('revoke a token, given its value, or its id and workspace')
  .option('--token <token>', 'the token value')
  .option('--id <tokenId>', 'the token id')
  .option('--workspace <id>', 'workspace id (with --id)')
  .action(async (options: { token?: string; id?: string; workspace?: string }) => {
    const repo = repository(program.opts<Target>());
    if (options.token) return print({ ...(await revokeToken(repo, { token: options.token })), revoked: true });
    if (options.id && options.workspace) {
      return print({ ...(await revokeToken(repo, { tokenId: options.id, workspaceId: options.workspace })), revoked: true });
    }
    throw new DomainError('give --token, or --id with --workspace');
  });
token
  .command('list')
  .description("list a workspace's tokens (ids and owners, never values)")
  .requiredOption('--workspace <id>', 'workspace id')
  .action(async (options: { workspace: string }) => {
    const tokens = await repository(program.opts<Target>()).listTokens(options.workspace);
    print(tokens.map(({ tokenId, email, createdAt, revokedAt }) => ({ tokenId, email, createdAt, revokedAt })));
  });

const parked = program.command('parked').description('stream records a consumer could not handle, parked with their error');
parked
  .command('list')
  .description('list parked records, next due first')
  .option('--limit <n>', 'at most this many', '100')
  .action(async (options: { limit: string }) => {
    print(await parkedRecords(program.opts<Target>()).list(Math.max(1, Math.min(1000, Number(options.limit) || 100))));
  });
parked
  .command('replay')
  .description('hand a parked record to its consumer again now')
  .requiredOption('--id <id>', 'the id `parked list` shows')
  .action(async (options: { id: string }) => {
    const replayed = await parkedRecords(program.opts<Target>()).replay(options.id);
    if (!replayed) throw new DomainError(`no parked record with id ${options.id}`);
    print(replayed);
  });

program
  .command('audit')
  .description("reconcile a source's stored events with each connected destination's outcomes; list the events in no state")
  .requiredOption('--source <id>', 'the source id')
  .option('--from <time>', 'events received at or after this ISO 8601 time')
  .option('--to <time>', 'events received at or before this ISO 8601 time (default: now)')
  .option('--workspace <id>', "the source's workspace (only for sources made before source ids were looked up)")
  .option('--limit <n>', 'events in no state listed per destination', '100')
  .option('--max-parts <n>', 'stored requests read at most', '10000')
  .action(async (options: { source: string; from?: string; to?: string; workspace?: string; limit: string; maxParts: string }) => {
    const query = validate(
      AuditQuery,
      {
        sourceId: options.source,
        ...(options.workspace !== undefined && { workspaceId: options.workspace }),
        ...(options.from !== undefined && { from: options.from }),
        ...(options.to !== undefined && { to: options.to }),
        limit: options.limit,
        maxParts: options.maxParts,
      },
      'audit',
    );
    print(await deliveryAudit(program.opts<Target>()).audit(query));
  });

program.parseAsync(process.argv).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    console.error(`admin: ${(error as Error).message}`);
    process.exit(error instanceof DomainError ? 2 : 1);
  },
);
