import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import fs, { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startStreamPoller, type PollerConsumer } from '../../infra/local/stream-poller';
import { fileRuntime, startTestRuntime } from '../support/runtime';

const rt = fileRuntime({ consumers: [] });
let streamArn: string;
const endpoint = () => process.env.WEIR_TEST_DYNAMODB_ENDPOINT as string;

beforeAll(async () => {
  const client = new DynamoDBClient({ endpoint: endpoint() });
  streamArn = (await client.send(new DescribeTableCommand({ TableName: rt.tableName }))).Table?.LatestStreamArn as string;
  client.destroy();
});

const put = (pk: string, sk: string) => rt.store.doc.send(new PutCommand({ TableName: rt.tableName, Item: { pk, sk } }));
const keysOf = (records: DynamoDBRecord[]) => records.map((r) => `${r.dynamodb?.Keys?.pk?.S}/${r.dynamodb?.Keys?.sk?.S}`);

function consumer(overrides: Partial<PollerConsumer> & Pick<PollerConsumer, 'handler'>): PollerConsumer {
  return { name: 'test', filters: [{}], batchSize: 10, ...overrides };
}

describe('the local stream poller', () => {
  it("hands consumers the records that match their filter, in Lambda's shape", async () => {
    const seen: DynamoDBRecord[] = [];
    const client = new DynamoDBStreamsClient({ endpoint: endpoint() });
    const poller = startStreamPoller({
      client,
      streamArn,
      intervalMs: 50,
      consumers: [
        consumer({
          filters: [{ eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'WANTED#' }] } } } }, { dynamodb: { Keys: { sk: { S: ['ALSO'] } } } }],
          handler: async (event) => void seen.push(...event.Records),
        }),
      ],
    });
    await put('P1', 'WANTED#1');
    await put('P1', 'OTHER#1');
    await put('P1', 'WANTED#2');
    await put('P1', 'ALSO');
    await poller.drain();
    await poller.stop();
    client.destroy();
    expect(keysOf(seen)).toEqual(['P1/WANTED#1', 'P1/WANTED#2', 'P1/ALSO']);
    expect(seen[0]).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb', eventSourceARN: streamArn });
    expect(typeof seen[0]?.dynamodb?.ApproximateCreationDateTime).toBe('number');
  });

  it('hands a failing batch over again from its first failed record until it succeeds, and never checkpoints past it', async () => {
    const attempts: string[][] = [];
    let failB = 3;
    const client = new DynamoDBStreamsClient({ endpoint: endpoint() });
    const checkpointFile = path.join(mkdtempSync(path.join(tmpdir(), 'weir-')), 'checkpoints.json');
    const failing = consumer({
      filters: [{ dynamodb: { Keys: { pk: { S: ['RETRY'] } } } }],
      handler: async (event) => {
        attempts.push(keysOf(event.Records));
        const failed = event.Records.find((r) => r.dynamodb?.Keys?.sk?.S === 'B');
        if (!failed || failB-- <= 0) return { batchItemFailures: [] };
        return { batchItemFailures: [{ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' }] };
      },
    });
    const poller = startStreamPoller({ client, streamArn, intervalMs: 50, checkpointFile, consumers: [failing] });
    // One transaction, so the three records reach the poller in one read.
    await rt.store.doc.send(
      new TransactWriteCommand({
        TransactItems: ['A', 'B', 'C'].map((sk) => ({ Put: { TableName: rt.tableName, Item: { pk: 'RETRY', sk } } })),
      }),
    );
    await poller.drain();
    await poller.stop();
    // More failures than any fixed retry count would allow: still handed over, never skipped.
    expect(attempts).toEqual([
      ['RETRY/A', 'RETRY/B', 'RETRY/C'],
      ['RETRY/B', 'RETRY/C'],
      ['RETRY/B', 'RETRY/C'],
      ['RETRY/B', 'RETRY/C'],
    ]);

    // A record that fails when the poller stops is not checkpointed: the next start hands it over again.
    failB = 1_000;
    const stuck: string[][] = [];
    const stopping = startStreamPoller({
      client,
      streamArn,
      intervalMs: 50,
      checkpointFile,
      consumers: [{ ...failing, handler: async (event) => (stuck.push(keysOf(event.Records)), failing.handler(event)) }],
    });
    await rt.store.doc.send(new PutCommand({ TableName: rt.tableName, Item: { pk: 'RETRY', sk: 'B', again: true } }));
    while (stuck.length < 2) await sleep(20);
    await stopping.stop();

    const again: string[] = [];
    const resumed = startStreamPoller({
      client,
      streamArn,
      intervalMs: 50,
      checkpointFile,
      consumers: [consumer({ handler: async (event) => void again.push(...keysOf(event.Records)) })],
    });
    await put('RETRY', 'D');
    await resumed.drain();
    await resumed.stop();
    client.destroy();
    expect(again).toEqual(['RETRY/B', 'RETRY/D']);
  });

  it('keeps its checkpoints whole when the process dies while writing them, and refuses to start from a cut file', async () => {
    const client = new DynamoDBStreamsClient({ endpoint: endpoint() });
    const checkpointFile = path.join(mkdtempSync(path.join(tmpdir(), 'weir-')), 'checkpoints.json');
    const seen: string[] = [];
    const options = {
      client,
      streamArn,
      intervalMs: 50,
      checkpointFile,
      consumers: [consumer({ handler: async (event) => void seen.push(...keysOf(event.Records)) })],
    };
    let poller = startStreamPoller(options);
    await put('WHOLE', '1');
    await poller.drain();
    const kept = readFileSync(checkpointFile, 'utf8');
    // The next checkpoint write is cut half-way by the end of the process.
    let cut = false;
    const realWrite = fs.writeFileSync;
    const write = jest.spyOn(fs, 'writeFileSync').mockImplementation((file, data) => {
      if (!String(file).startsWith(checkpointFile)) throw new Error('unexpected write');
      realWrite(file, String(data).slice(0, 10));
      cut = true;
      throw new Error('killed while writing');
    });
    try {
      await put('WHOLE', '2');
      const since = Date.now();
      while (!cut && Date.now() - since < 10_000) await sleep(20);
      await poller.stop();
    } finally {
      write.mockRestore();
    }
    expect(cut).toBe(true);
    expect(readFileSync(checkpointFile, 'utf8')).toBe(kept);
    // The next start goes on after the last whole checkpoint (the record it did not keep comes again).
    poller = startStreamPoller(options);
    await poller.drain();
    await poller.stop();
    expect(seen.filter((key) => key.startsWith('WHOLE/'))).toEqual(['WHOLE/1', 'WHOLE/2', 'WHOLE/2']);
    // A file cut some other way is not read as "no checkpoints" (that would hand the whole stream over again).
    writeFileSync(checkpointFile, kept.slice(0, 10));
    expect(() => startStreamPoller(options)).toThrow(`the stream checkpoints in ${checkpointFile} cannot be read`);
    client.destroy();
  });
});

describe('the local runtime', () => {
  it('feeds each consumer on its own, so one that is slow delays no other', async () => {
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const fastSeen: number[] = [];
    const runtime = await startTestRuntime({
      consumers: [
        consumer({ name: 'slow', handler: () => blocked }),
        consumer({ name: 'fast', handler: async (event) => void fastSeen.push(...event.Records.map(() => Date.now())) }),
      ],
    });
    const seenBy = async (count: number) => {
      const since = Date.now();
      while (fastSeen.length < count && Date.now() - since < 10_000) await sleep(20);
    };
    try {
      // The slow consumer is still on the first record when the second is written: the fast one gets both.
      await runtime.store.doc.send(new PutCommand({ TableName: runtime.tableName, Item: { pk: 'P', sk: '1' } }));
      await seenBy(1);
      await runtime.store.doc.send(new PutCommand({ TableName: runtime.tableName, Item: { pk: 'P', sk: '2' } }));
      await seenBy(2);
      expect(fastSeen).toHaveLength(2);
    } finally {
      release();
      await runtime.stop();
    }
  });
});
