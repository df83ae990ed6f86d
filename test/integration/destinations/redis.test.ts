import { createServer, type Server, type Socket } from 'node:net';
import Redis from 'ioredis';
import { freePort } from '../../../infra/local/dynamodb-local';
import { redis } from '../../support/destination-types';
import type { DeletionIO } from '../../../shared/destinations/types';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

/**
 * Redis user deletion against a real redis-server: `DEL <prefix>user:<userId>` for each user (the
 * reference's Redis deleter), nothing else, in the configured database only.
 */
const io: DeletionIO = { send: () => Promise.reject(new Error('Redis deletion sends no HTTP requests')) };
const users = (...ids: string[]) => ids.map((userId) => ({ userId }));
const savedAllowlist = process.env.WEIR_OUTBOUND_ALLOWLIST;

let server: RedisServer;
let data: Redis;

/** Every key of a database with its value (hash fields or string), to compare before and after. */
async function contents(db: number): Promise<Record<string, unknown>> {
  await data.select(db);
  const out: Record<string, unknown> = {};
  for (const key of (await data.keys('*')).sort()) {
    out[key] = (await data.type(key)) === 'hash' ? await data.hgetall(key) : await data.get(key);
  }
  return out;
}

const DB0 = {
  'user:u1': { name: 'Ada', plan: 'pro' },
  'user:u2': { name: 'Bob', plan: 'free' },
  'user:u3': { name: 'Cy', plan: 'team' },
  'other:u1': 'keep',
  'user:u1:extra': { note: 'not the user hash' },
  'app:user:u1': { name: 'Ada (prefixed)' },
};
const DB1 = { 'user:u1': { name: 'Ada in db 1' } };

const without = <T extends Record<string, unknown>>(record: T, ...keys: string[]) =>
  Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));

beforeAll(async () => {
  server = await startRedisServer();
  data = new Redis({ host: server.host, port: server.port, lazyConnect: true });
  await data.connect();
});

afterAll(async () => {
  data?.disconnect();
  await server?.stop();
  if (savedAllowlist === undefined) delete process.env.WEIR_OUTBOUND_ALLOWLIST;
  else process.env.WEIR_OUTBOUND_ALLOWLIST = savedAllowlist;
});

beforeEach(async () => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  await data.flushall();
  for (const [db, keys] of [
    [0, DB0],
    [1, DB1],
  ] as const) {
    await data.select(db);
    for (const [key, value] of Object.entries(keys)) {
      if (typeof value === 'string') await data.set(key, value);
      else await data.hset(key, value);
    }
  }
});

const config = (extra: Record<string, unknown> = {}) => redis.config.parse({ address: server.address, ...extra });

describe('Redis user deletion', () => {
  it('deletes only user:<userId>: other users, look-alike keys and other databases stay as they were', async () => {
    await expect(redis.deleteUsers!(users('u1'), config(), io)).resolves.toEqual({ status: 'completed' });
    expect(await contents(0)).toEqual(without(DB0, 'user:u1'));
    expect(await contents(1)).toEqual(DB1);
  });

  it('deletes several users at once', async () => {
    await expect(redis.deleteUsers!(users('u1', 'u3'), config(), io)).resolves.toEqual({ status: 'completed' });
    expect(await contents(0)).toEqual(without(DB0, 'user:u1', 'user:u3'));
  });

  it('puts the prefix before the key', async () => {
    await expect(redis.deleteUsers!(users('u1'), config({ prefix: 'app:' }), io)).resolves.toEqual({ status: 'completed' });
    expect(await contents(0)).toEqual(without(DB0, 'app:user:u1'));
  });

  it('deletes in the configured database', async () => {
    await expect(redis.deleteUsers!(users('u1'), config({ database: 1 }), io)).resolves.toEqual({ status: 'completed' });
    expect(await contents(1)).toEqual({});
    expect(await contents(0)).toEqual(DB0);
  });

  it('completes for a user that has no key', async () => {
    await expect(redis.deleteUsers!(users('nobody'), config(), io)).resolves.toEqual({ status: 'completed' });
    expect(await contents(0)).toEqual(DB0);
  });

  it('refuses a private address that is not allow-listed, for good, without connecting', async () => {
    delete process.env.WEIR_OUTBOUND_ALLOWLIST;
    const outcome = await redis.deleteUsers!(users('u1'), config(), io);
    expect(outcome).toEqual({ status: 'failed', retryable: false, error: expect.stringContaining('non-public address: 127.0.0.1') });
    expect(await contents(0)).toEqual(DB0);
  });

  it('fails retryably when nothing listens on the port', async () => {
    const outcome = await redis.deleteUsers!(users('u1'), config({ address: `127.0.0.1:${await freePort()}` }), io);
    expect(outcome).toEqual({ status: 'failed', retryable: true, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('fails retryably when the server never answers (5 s time-out)', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const started = Date.now();
      const outcome = await redis.deleteUsers!(users('u1'), config({ address: `127.0.0.1:${port}` }), io);
      expect(outcome).toEqual({ status: 'failed', retryable: true, error: expect.stringContaining('timed out') });
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('Redis user deletion on a server with a password', () => {
  let locked: RedisServer;
  beforeAll(async () => {
    locked = await startRedisServer(['--requirepass', 'right', '--databases', '2']);
  });
  afterAll(() => locked?.stop());

  const lockedConfig = (extra: Record<string, unknown>) => redis.config.parse({ address: locked.address, ...extra });

  it('deletes with the right password', async () => {
    const client = new Redis({ host: locked.host, port: locked.port, password: 'right', lazyConnect: true });
    await client.connect();
    try {
      await client.hset('user:u1', { name: 'Ada' });
      await client.set('other:u1', 'keep');
      await expect(redis.deleteUsers!(users('u1'), lockedConfig({ password: 'right' }), io)).resolves.toEqual({ status: 'completed' });
      expect(await client.keys('*')).toEqual(['other:u1']);
    } finally {
      client.disconnect();
    }
  });

  it('fails for good with a wrong password or none', async () => {
    await expect(redis.deleteUsers!(users('u1'), lockedConfig({ password: 'wrong' }), io)).resolves.toEqual({
      status: 'failed',
      retryable: false,
      error: expect.stringContaining('WRONGPASS'),
    });
    await expect(redis.deleteUsers!(users('u1'), lockedConfig({}), io)).resolves.toEqual({
      status: 'failed',
      retryable: false,
      error: expect.stringContaining('NOAUTH'),
    });
  });

  it('fails for good, deleting nothing, when the configured database does not exist there', async () => {
    const client = new Redis({ host: locked.host, port: locked.port, password: 'right', lazyConnect: true });
    await client.connect();
    try {
      await client.hset('user:u2', { name: 'Bob' });
      const outcome = await redis.deleteUsers!(users('u2'), lockedConfig({ password: 'right', database: 5 }), io);
      expect(outcome).toEqual({ status: 'failed', retryable: false, error: expect.stringContaining('DB index is out of range') });
      expect(await client.hgetall('user:u2')).toEqual({ name: 'Bob' });
    } finally {
      client.disconnect();
    }
  });
});
