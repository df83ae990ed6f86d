import { endPostgresPools } from '../../../shared/destinations/postgres/connection';
import { deliveryRig } from '../../support/delivery-rig';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server';
import { vendorPipeline } from '../../support/vendor-pipeline';
import { S3RVER_KEYS, startS3Server, type S3Server } from '../../support/s3-server';

/**
 * S3 and PostgreSQL through live delivery: the data plane writes a source's events to the store itself, a
 * chunk at a time, with the keys from the workspace's credentials (S3) or the configured login (PostgreSQL).
 */
const rig = deliveryRig();
let store: S3Server;
let warehouse: PostgresServer;

beforeAll(async () => {
  store = await startS3Server(['events']);
  warehouse = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await store?.stop();
  await endPostgresPools();
  await warehouse?.stop();
});

/** The warehouse's login, writing into `schema`. */
const warehouseIn = (schema: string) => {
  const { host, port, database, user, password } = warehouse;
  return { host, port, database, user, password, schema };
};

const events = (prefix: string) => [
  { type: 'identify', userId: 'ada', messageId: `${prefix}-1`, traits: { plan: 'pro' } },
  { type: 'track', userId: 'ada', messageId: `${prefix}-2`, event: 'Order Completed', properties: { revenue: 12.5 } },
  { type: 'page', userId: 'ada', messageId: `${prefix}-3`, name: 'Home' },
];

it("writes a source's events to S3 as one gzipped JSON-lines object, with the workspace's keys", async () => {
  const config = { bucketName: 'events', endPoint: store.url, prefix: 'weir', accessKeyIdCredential: 'S3_KEY_ID', secretAccessKeyCredential: 'S3_SECRET' };
  const p = await vendorPipeline(rig, 'S3', config, { S3_KEY_ID: S3RVER_KEYS.accessKeyId, S3_SECRET: S3RVER_KEYS.secretAccessKey });
  await p.send(events('s3'));
  await rig.rt.poller.drain();

  expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0, aborted: 0 });
  const objects = Object.entries(await store.objects('events')).filter(([key]) => key.startsWith(`weir/${p.sourceId}/`));
  expect(objects).toHaveLength(1);
  const [key, lines] = objects[0]!;
  expect(key).toMatch(new RegExp(`^weir/${p.sourceId}/\\d{4}/\\d{2}/\\d{2}/\\d{2}/[\\w-]+\\.json\\.gz$`));
  expect((lines as { messageId: string; receivedAt: string }[]).map((line) => line.messageId)).toEqual(['s3-1', 's3-2', 's3-3']);
  const received = new Date((lines[0] as { receivedAt: string }).receivedAt);
  const hour = [received.getUTCFullYear(), received.getUTCMonth() + 1, received.getUTCDate(), received.getUTCHours()].map((n) => String(n).padStart(2, '0'));
  expect(key.split('/').slice(2, 6)).toEqual(hour);
});

it("loads a source's events into PostgreSQL tables", async () => {
  const p = await vendorPipeline(rig, 'POSTGRES', warehouseIn('live'));
  await p.send(events('pg'));
  await rig.rt.poller.drain();

  expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0, aborted: 0 });
  const db = await warehouse.connect();
  try {
    const rows = async (sql: string) => (await db.query(sql)).rows;
    expect(await rows('SELECT id, event, user_id FROM live.tracks')).toEqual([{ id: 'pg-2', event: 'order_completed', user_id: 'ada' }]);
    expect(await rows('SELECT id, revenue FROM live.order_completed')).toEqual([{ id: 'pg-2', revenue: '12.5' }]);
    expect(await rows('SELECT id, plan FROM live.identifies')).toEqual([{ id: 'pg-1', plan: 'pro' }]);
    expect(await rows('SELECT id, plan FROM live.users')).toEqual([{ id: 'ada', plan: 'pro' }]);
    expect(await rows('SELECT id, name FROM live.pages')).toEqual([{ id: 'pg-3', name: 'Home' }]);
  } finally {
    await db.end();
  }
});

it('answers the test interface for PostgreSQL: the rows an event becomes, then that event loaded once', async () => {
  const p = await vendorPipeline(rig, 'POSTGRES', warehouseIn('tested'));
  const message = { type: 'track', event: 'Plan Chosen', userId: 'ada', messageId: 'ti-1', properties: { plan: 'pro' } };
  const preview = await p.testDestination({ message, stage: { dest_transform: true } });
  expect(preview.status).toBe(200);
  const [entry] = preview.body.data;
  expect(entry.dest_transformed_payload.map((row: { table: string }) => row.table)).toEqual(['tracks', 'plan_chosen']);
  expect(entry.dest_transformed_payload[1].columns).toMatchObject({ id: 'ti-1', user_id: 'ada', plan: 'pro' });
  expect(entry.destination_response).toBeUndefined();

  for (let i = 0; i < 2; i++) {
    const sent = await p.testDestination({ message });
    expect(sent.body.data[0].destination_response_status).toEqual([200]);
  }
  const db = await warehouse.connect();
  try {
    expect((await db.query('SELECT id, plan FROM tested.plan_chosen')).rows).toEqual([{ id: 'ti-1', plan: 'pro' }]);
  } finally {
    await db.end();
  }
  const { messageId: _, ...unkeyed } = message;
  const refused = await p.testDestination({ message: unkeyed });
  expect(refused.body.data[0]).toEqual({
    dest_transformed_payload: { error: 'a warehouse row needs the event to have a messageId' },
    destination_response: { error: expect.any(String) },
    user_transformed_payload: expect.anything(),
  });
});
