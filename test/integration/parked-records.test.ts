import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { parkedRecordFilter } from '../../shared/contract/functions';
import { eachNewImage } from '../../shared/streams/consumer-loop';
import { ParkedRecords } from '../../shared/domain/streams/parked-records';
import { ParkedRecordRepository } from '../../shared/persistence/parked-record-repository';
import { createTableClient } from '../../shared/persistence/table-client';
import { ADMIN, basic, call, startTestRuntime, type TestRuntime } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * A record that keeps failing is parked with its content and error, never dropped and never in the way of
 * the records behind it; the scheduler (or an operator) hands it back to its consumer through the stream.
 */
let rt: TestRuntime;
let repository: ParkedRecordRepository;
/** What the consumer handled, by record id; `poisoned` ids fail until cured. */
const handled: string[] = [];
const poisoned = new Set<string>();
let calls = 0;

const CONSUMER = 'testConsumer';
const handler = (event: DynamoDBStreamEvent) =>
  eachNewImage(
    event,
    CONSUMER,
    async (item) => {
      calls++;
      if (poisoned.has(String(item.id))) throw new Error(`record ${String(item.id)} cannot be handled`);
      handled.push(String(item.id));
    },
    { parked: repository, pauseMs: 10 },
  );

beforeAll(async () => {
  process.env.WEIR_PARKED_RETRY_BASE_MS = '1';
  rt = await startTestRuntime({
    consumers: [
      {
        name: CONSUMER,
        filters: [{ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['testItem'] } } } }, parkedRecordFilter(CONSUMER)],
        batchSize: 10,
        handler: (event) => handler(event),
      },
    ],
  });
  repository = new ParkedRecordRepository(rt.store);
});
afterAll(async () => {
  delete process.env.WEIR_PARKED_RETRY_BASE_MS;
  await rt.stop();
});

const write = (workspaceId: string, id: string) =>
  rt.store.doc.send(
    new PutCommand({
      TableName: rt.tableName,
      Item: { pk: `WS#${workspaceId}`, sk: `TEST#${id}`, entity: 'testItem', workspaceId, id, payload: new Uint8Array([1, 2, 3]) },
    }),
  );
const admin = basic(ADMIN.user, ADMIN.password);
const until = (check: () => boolean | Promise<boolean>, what: string) => waitFor(what, check, Boolean, { timeoutMs: 10_000, everyMs: 25 });

describe('parked stream records', () => {
  it('parks a record that keeps failing, with its content and error, and hands on the records behind it', async () => {
    poisoned.add('p1');
    await write('ws-a', 'p1');
    await write('ws-a', 'ok1');
    await rt.poller.drain();

    expect(handled).toContain('ok1');
    expect(handled).not.toContain('p1');
    const [parked] = await repository.list(10);
    expect(parked).toMatchObject({
      consumer: CONSUMER,
      workspaceId: 'ws-a',
      eventName: 'INSERT',
      status: 'waiting',
      attempts: 0,
      lastError: 'record p1 cannot be handled',
      image: { id: 'p1', workspaceId: 'ws-a', entity: 'testItem', payload: new Uint8Array([1, 2, 3]) },
    });

    // The operator sees it, without its content; the admin CLI too.
    const listed = await call(rt.dataUrl, 'GET', '/admin/parked-records', { auth: admin });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        consumer: CONSUMER,
        workspaceId: 'ws-a',
        status: 'waiting',
        lastError: 'record p1 cannot be handled',
        item: { entity: 'testItem', id: 'p1' },
      }),
    ]);
    expect(listed.body[0]).not.toHaveProperty('image');
    const cli = execFileSync(
      process.execPath,
      ['--import', 'tsx', path.resolve(__dirname, '../../infra/local/admin.ts'), '--endpoint', rt.dynamoEndpoint, '--table', rt.tableName, 'parked', 'list'],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(cli)).toEqual(listed.body);
    expect((await call(rt.dataUrl, 'GET', '/admin/parked-records')).status).toBe(400);
  });

  it('replays it when due, backs off while it still fails, and releases it once handled', async () => {
    const scheduler = new ParkedRecords(repository);
    const [parked] = await repository.list(10);

    const before = calls;
    expect(await scheduler.replayDue()).toBe(1);
    await until(async () => (await repository.get(parked!))?.status === 'waiting' && calls > before, 'the failed replay');
    const failedAgain = await repository.get(parked!);
    expect(failedAgain).toMatchObject({ attempts: 1, status: 'waiting', lastError: 'record p1 cannot be handled' });
    expect(handled).not.toContain('p1');

    poisoned.delete('p1');
    await sleep(5);
    expect(await scheduler.replayDue()).toBe(1);
    await until(() => handled.includes('p1'), 'the replay');
    await until(async () => (await repository.get(parked!)) === undefined, 'the release');
    expect(handled.filter((id) => id === 'p1')).toHaveLength(1);
    expect(await repository.list(10)).toEqual([]);
  });

  it('replays a record on demand, and answers 404 for an id that names none', async () => {
    process.env.WEIR_PARKED_RETRY_BASE_MS = String(3600_000);
    poisoned.add('p2');
    await write('ws-b', 'p2');
    await until(async () => (await repository.list(10)).length === 1, 'the parking');
    poisoned.delete('p2');
    // Not due for an hour: the scheduler leaves it, an operator does not have to wait.
    expect(await new ParkedRecords(repository).replayDue()).toBe(0);
    const [listed] = (await call(rt.dataUrl, 'GET', '/admin/parked-records', { auth: admin })).body;
    const replay = await call(rt.dataUrl, 'POST', `/admin/parked-records/${encodeURIComponent(listed.id)}/replay`, { auth: admin });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: listed.id, status: 'replaying' });
    await until(() => handled.includes('p2'), 'the replay on demand');
    await until(async () => (await repository.list(10)).length === 0, 'the release');

    const unknown = await call(rt.dataUrl, 'POST', `/admin/parked-records/${encodeURIComponent(`${CONSUMER}.ws-b.nothing`)}/replay`, {
      auth: admin,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('No parked record found');
    process.env.WEIR_PARKED_RETRY_BASE_MS = '1';
  });

  it('parks a record it cannot even read, as it came, and hands on the records behind it', async () => {
    const seen: string[] = [];
    const good = {
      eventID: 'e-good',
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: '8', NewImage: { id: { S: 'fine' }, workspaceId: { S: 'ws-d' } } },
    };
    const bad = {
      eventID: 'e-bad',
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: '7', NewImage: { id: { Q: 'no such type' } } as never },
    };
    const result = await eachNewImage({ Records: [bad, good] }, CONSUMER, async (item) => void seen.push(String(item.id)), {
      parked: repository,
      pauseMs: 1,
    });
    expect(result.batchItemFailures).toEqual([]);
    expect(seen).toEqual(['fine']);
    const parked = await repository.get({ consumer: CONSUMER, workspaceId: '-', eventId: 'e-bad' });
    expect(parked).toMatchObject({ status: 'waiting', image: { newImage: { id: { Q: 'no such type' } } } });
    expect(parked!.lastError).not.toBe('');
  });

  it('reports a record it could neither handle nor park, for the event source to hand over again', async () => {
    // A store where nothing listens: every write fails, as in an outage.
    const client = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:1',
      maxAttempts: 1,
      region: 'local',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const dead = new ParkedRecordRepository(createTableClient({ table: rt.tableName, client }));
    const record = {
      eventID: 'e1',
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: '42', NewImage: { id: { S: 'p3' }, workspaceId: { S: 'ws-c' } } },
    };
    poisoned.add('p3');
    const result = await eachNewImage(
      { Records: [record] },
      CONSUMER,
      async (item) => {
        if (poisoned.has(String(item.id))) throw new Error('cannot');
      },
      { parked: dead, pauseMs: 1 },
    );
    client.destroy();
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '42' }]);
  });
});
