import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { suppressionIndex } from '../../shared/composition/suppression';
import type { Services } from '../../shared/services';
import { json, type DestinationServer, type Responder } from '../support/destination-server';
import { startRedisServer } from '../support/redis-server';
import { regulationSuite } from '../support/regulations';
import type { TestRuntime } from '../support/runtime';

/** Deletion jobs of suppress_with_delete regulations, against a local server playing the vendor and a real Redis. */
const { state, workspace, settle } = regulationSuite();
let rt: TestRuntime;
let vendor: DestinationServer;
let regulations: Services;
beforeAll(() => ({ rt, vendor, regulations } = state));

describe('deletion', () => {
  const amplitudeCalls = () => vendor.received.filter((r) => r.method === 'POST');

  /** A regulation deleting `users` at a fresh workspace's Amplitude destination, the vendor answering with `answer`. */
  async function amplitudeRegulation(answer: Responder, users: Record<string, string>[] = [{ userId: 'u' }]) {
    const w = await workspace();
    const am = await w.amplitude();
    vendor.on('/', answer);
    const [created] = (await w.create({ regulationType: 'suppress_with_delete', destinationIds: [am], users })).body;
    return { w, am, created };
  }

  it('runs one job per destination to completed, calling the vendor once', async () => {
    const { w, am, created } = await amplitudeRegulation(json(200, { day: '2026-11-23' }), [{ userId: 'gone', email: 'g@x.io' }]);
    expect(created.destinationIds).toEqual([am]);
    const detail = await settle(w, created.id);
    expect(detail).toMatchObject({
      status: 'completed',
      jobs: [
        {
          destinationId: am,
          destinationType: 'AM',
          status: 'completed',
          attempts: 1,
          createdAt: expect.any(String),
          finishedAt: expect.any(String),
        },
      ],
    });
    expect(amplitudeCalls()).toHaveLength(1);
    expect(JSON.stringify(amplitudeCalls()[0]!.json)).toContain('gone');
  });

  it('retries a 500 with backoff and completes on the 200 that follows', async () => {
    let calls = 0;
    const { w, created } = await amplitudeRegulation((req, res) => json(++calls === 1 ? 500 : 200, calls === 1 ? { error: 'busy' } : {})(req, res));
    const detail = await settle(w, created.id);
    expect(detail.jobs).toEqual([expect.objectContaining({ status: 'completed', attempts: 2, lastError: expect.stringContaining('500') })]);
    expect(calls).toBe(2);
  });

  it.each([
    [
      'aborts after the bounded number of attempts, keeping the last error',
      500,
      'down for good',
      'failed',
      { status: 'aborted', attempts: 5, lastError: expect.stringContaining('down for good'), finishedAt: expect.any(String) },
    ],
    ['ends at once when the vendor does not know the user', 404, 'no such user', 'completed', { status: 'not_found', attempts: 1, reason: expect.any(String) }],
    [
      'ends at once as unsupported when the vendor says it cannot delete',
      501,
      'deletion is not available for this project',
      'failed',
      { status: 'unsupported', attempts: 1, reason: 'Amplitude answered 501: {"error":"deletion is not available for this project"}' },
    ],
  ])('%s', async (_, answer, error, status, job) => {
    const { w, created } = await amplitudeRegulation(json(answer, { error }));
    const detail = await settle(w, created.id);
    expect(detail.status).toBe(status);
    expect(detail.jobs).toEqual([expect.objectContaining(job)]);
    expect(amplitudeCalls()).toHaveLength(job.attempts);
  });

  it('stops waiting jobs when the regulation is canceled; no attempt starts after the cancel returns', async () => {
    const { w, created } = await amplitudeRegulation(json(503, {}));
    await rt.poller.drain();
    const afterFirst = (await w.api('GET', `/v2/regulations/${created.id}`)).body;
    expect(afterFirst.jobs).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, nextAttemptAt: expect.any(String) })]);
    await w.api('DELETE', `/v2/regulations/${created.id}`);
    const calls = amplitudeCalls().length;
    await sleep(100);
    await rt.poller.drain();
    await rt.scheduler.runNow();
    const detail = (await w.api('GET', `/v2/regulations/${created.id}`)).body;
    expect(detail.status).toBe('canceled');
    expect(detail.jobs).toEqual([expect.objectContaining({ status: 'canceled', attempts: 1, finishedAt: expect.any(String) })]);
    expect(amplitudeCalls()).toHaveLength(calls);
  });

  it('without destinationIds applies to every destination: those that cannot delete show as unsupported, the suppression holds', async () => {
    const w = await workspace();
    const source = await w.source();
    const [am1, am2] = [await w.amplitude(), await w.amplitude()];
    const hook = await w.destination('WEBHOOK', { webhookUrl: 'https://example.com/x' });
    vendor.on('/', json(200, {}));
    const answer = await w.create({ regulationType: 'suppress_with_delete', users: [{ userId: 'u' }] });
    expect(answer.status).toBe(201);
    const [created] = answer.body;
    expect(created.destinationIds.sort()).toEqual([am1, am2, hook].sort());
    expect(await suppressionIndex(regulations).suppressedUsers(w.ws.workspaceId, source, ['u'])).toEqual(new Set(['u']));
    const detail = await settle(w, created.id);
    const jobs = (detail.jobs as { destinationId: string; status: string; reason?: string; attempts: number }[])
      .map((j) => [j.destinationId, j.status, j.reason, j.attempts])
      .sort();
    expect(jobs).toEqual(
      [
        [am1, 'completed', undefined, 1],
        [am2, 'completed', undefined, 1],
        [hook, 'unsupported', 'destination type WEBHOOK cannot delete users', 0],
      ].sort(),
    );
    expect(amplitudeCalls()).toHaveLength(2);
  });

  it('accepts a destination that cannot delete when named, and a workspace without destinations; only the suppression runs', async () => {
    const w = await workspace();
    const source = await w.source();
    const hook = await w.destination('WEBHOOK', { webhookUrl: 'https://example.com/x' });
    const named = await w.create({ regulationType: 'suppress_with_delete', destinationIds: [hook], users: [{ userId: 'named' }] });
    expect([named.status, named.body[0].destinationIds]).toEqual([201, [hook]]);
    expect(await settle(w, named.body[0].id)).toMatchObject({
      status: 'failed',
      jobs: [
        {
          destinationId: hook,
          destinationType: 'WEBHOOK',
          status: 'unsupported',
          reason: 'destination type WEBHOOK cannot delete users',
          attempts: 0,
          finishedAt: expect.any(String),
        },
      ],
    });
    const empty = await workspace();
    const emptySource = await empty.source();
    const none = await empty.create({ regulationType: 'suppress_with_delete', users: [{ userId: 'nobody' }] });
    expect([none.status, none.body[0].destinationIds]).toEqual([201, []]);
    expect(await suppressionIndex(regulations).suppressedUsers(w.ws.workspaceId, source, ['named'])).toEqual(new Set(['named']));
    expect(await suppressionIndex(regulations).suppressedUsers(empty.ws.workspaceId, emptySource, ['nobody'])).toEqual(new Set(['nobody']));
    expect(vendor.received).toEqual([]);
  });

  it("deletes at a real Redis the user's key and nothing else", async () => {
    const server = await startRedisServer();
    const data = new Redis({ host: server.host, port: server.port, lazyConnect: true });
    try {
      await data.connect();
      await data.hset('user:gone', { email: 'g@x.io', plan: 'pro' });
      await data.hset('user:kept', { email: 'k@x.io' });
      await data.set('other:gone', 'stays');
      const w = await workspace();
      const cache = await w.destination('REDIS', { address: server.address });
      const [created] = (await w.create({ regulationType: 'suppress_with_delete', destinationIds: [cache], users: [{ userId: 'gone' }] })).body;
      const detail = await settle(w, created.id);
      expect(detail).toMatchObject({
        status: 'completed',
        jobs: [{ destinationId: cache, destinationType: 'REDIS', status: 'completed', attempts: 1 }],
      });
      expect(await data.exists('user:gone')).toBe(0);
      expect(await data.hgetall('user:kept')).toEqual({ email: 'k@x.io' });
      expect(await data.get('other:gone')).toBe('stays');
    } finally {
      data.disconnect();
      await server.stop();
    }
  });

  it('leaves the same jobs and the same vendor calls when a stream record is replayed', async () => {
    const { w, created } = await amplitudeRegulation(json(200, {}));
    const first = await settle(w, created.id);
    expect(amplitudeCalls()).toHaveLength(1);
    const { marshall } = await import('@aws-sdk/util-dynamodb');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { handler } = require('../../functions/regulation-processor/handler') as {
      handler: (e: unknown) => Promise<{ batchItemFailures: unknown[] }>;
    };
    const record = {
      eventID: '1',
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '1', NewImage: marshall({ entity: 'regulation', ...created }) },
    };
    for (let i = 0; i < 2; i++) expect(await handler({ Records: [record] })).toEqual({ batchItemFailures: [] });
    await rt.scheduler.runNow();
    expect(amplitudeCalls()).toHaveLength(1);
    expect((await w.api('GET', `/v2/regulations/${created.id}`)).body).toEqual(first);
  });
});
