import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { INGEST_ROUTES } from '../../shared/contract/function-routes/ingest';
import { PATH_TYPES } from '../../shared/domain/ingestion/schemas';
import { shutdownSandbox } from '../../shared/sandbox';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { startDestinationServer, type DestinationServer } from '../support/destination-server';
import { TYPE_CONFUSIONS, pixelTypeConfusions, withRaw } from '../support/hostile-inputs';
import { basic, bearer, call, type Answer, startTestRuntime, type TestRuntime } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * Trust boundary: the values an anonymous sender (nothing but a public write key) puts in an event. Every one
 * is data: an id that is no string and no finite number is refused with a 400 naming it, storing nothing; an
 * object shaped to trip a String() or a template literal ({toString: …}, {valueOf: …}) is never a 500, on
 * every ingestion route (the /v1 paths with Segment's, the beacon, the pixel), and where an event carries
 * data (properties, traits, context) it is stored and delivered as it came.
 */
let rt: TestRuntime;
let hook: DestinationServer;
let writeKey: string;
beforeAll(async () => {
  process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
  rt = await startTestRuntime();
  hook = await startDestinationServer();
  const ws = await rt.newWorkspace();
  const api = async (path: string, body: unknown) => (await call(rt.controlUrl, 'POST', path, { auth: bearer(ws.token), body })).body;
  const source = (await api('/v2/sources', { name: 'web site' })).source;
  writeKey = source.writeKey;
  const destination = (await api('/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: `${hook.url}/hook` } })).destination;
  await api('/v2/connections', { sourceId: source.id, destinationId: destination.id });
  // A tracking plan on the source: its stage reads every event on the request path too.
  const specs = [
    { type: 'track', name: 'Signed Up', schema: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] } },
    { type: 'identify', schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } } },
  ];
  const plan = (await api('/v2/tracking-plans', { name: 'Plan', specs })).trackingPlan;
  const linked = await call(rt.controlUrl, 'PUT', `/v2/sources/${source.id}/tracking-plan`, { auth: bearer(ws.token), body: { planId: plan.id } });
  expect(linked.status).toBe(200);
  await rt.poller.drain();
}, 60_000);
afterAll(async () => {
  delete process.env[OUTBOUND_ALLOWLIST_ENV];
  await hook.close();
  await rt.stop();
  await shutdownSandbox();
});

async function snapshot(): Promise<string> {
  const { Items = [] } = await rt.store.doc.send(new ScanCommand({ TableName: rt.store.table, ConsistentRead: true }));
  return JSON.stringify(Items.sort((x, y) => `${x.pk}${x.sk}`.localeCompare(`${y.pk}${y.sk}`)));
}

/** Every ingestion route that takes a JSON body, as a path to post to (the /v1 route once per path type). */
const POSTED = INGEST_ROUTES.filter((route) => route.method === 'POST').flatMap((route) =>
  route.path === '/v1/{type}' ? Object.keys(PATH_TYPES).map((type) => `/v1/${type}`) : [route.path],
);
/**
 * One path per way a body is read: each event type's own path and the batch path (a type alias such as /v1/t
 * reads a body as /v1/track does), once with Segment's clock (a one-letter path), and the beacon.
 */
const SHAPES = POSTED.filter(
  (path) => !path.startsWith('/v1/') || ['identify', 'track', 'page', 'screen', 'group', 'alias', 'batch', 't', 'b'].includes(path.slice(4)),
);
const isBatch = (path: string) => path.startsWith('/beacon') || ['batch', 'b', 'import'].includes(PATH_TYPES[path.slice(4) as keyof typeof PATH_TYPES]);

const EVENT = { type: 'track', event: 'Signed Up', userId: 'u1', anonymousId: 'a1', messageId: 'm1', properties: { plan: 'pro' } };

/** The request's JSON text with `field` of its event (or of the batch's body, for `body.<field>`) set to the raw JSON `value`. */
function bodyWith(path: string, field: string, value: string): string {
  const [where, key] = field.startsWith('body.') ? ['body', field.slice(5)] : ['event', field];
  const event = where === 'event' ? { ...EVENT, [key!]: '__RAW__' } : EVENT;
  const body = isBatch(path) ? { batch: [event], ...(where === 'body' && { [key!]: '__RAW__' }) } : where === 'body' ? { ...event, [key!]: '__RAW__' } : event;
  return withRaw(body, value);
}

const post = (path: string, rawBody: string) =>
  call(rt.dataUrl, 'POST', path.startsWith('/beacon') ? `${path}?writeKey=${writeKey}` : path, {
    auth: path.startsWith('/beacon') ? undefined : basic(writeKey, ''),
    rawBody,
    headers: { 'Content-Type': path.startsWith('/beacon') ? 'text/plain' : 'application/json' },
  });

const seen = (answer: Answer) => `${answer.status} ${answer.text.slice(0, 200)}`;

describe('an id that is no string and no number', () => {
  it.each(POSTED)(
    'POST %s: a 400 naming userId, anonymousId or messageId for each, and nothing stored',
    async (path) => {
      const before = await snapshot();
      const problems: string[] = [];
      for (const field of ['userId', 'anonymousId', 'messageId']) {
        for (const [name, value] of TYPE_CONFUSIONS) {
          const answer = await post(path, bodyWith(path, field, value));
          const expected = `batch[0].${field}: is neither a string nor a number`;
          if (answer.status !== 400 || answer.text.trim() !== expected) problems.push(`${field} ${name}: expected 400 ${expected}, got ${seen(answer)}`);
        }
      }
      expect(problems).toEqual([]);
      await rt.poller.drain();
      expect(await snapshot()).toBe(before);
    },
    120_000,
  );

  it.each(['track', 'page'])(
    'GET /pixel/v1/%s: a GIF with 400 and the reason naming the field, and nothing stored',
    async (type) => {
      const before = await snapshot();
      const problems: string[] = [];
      for (const field of ['userId', 'anonymousId', 'messageId']) {
        for (const [name, query] of pixelTypeConfusions(field)) {
          const ids = ['userId', 'anonymousId'].filter((id) => id !== field).map((id) => `${id}=x1`);
          const answer = await call(rt.dataUrl, 'GET', `/pixel/v1/${type}?writeKey=${writeKey}&${[...ids, query].join('&')}`);
          const reason = answer.headers.get('x-weir-error');
          const expected = `batch[0].${field}: is neither a string nor a number`;
          if (answer.status !== 400 || answer.headers.get('content-type') !== 'image/gif' || reason !== expected) {
            problems.push(`${field} ${name}: expected a 400 GIF saying ${expected}, got ${answer.status} ${reason}`);
          }
        }
      }
      expect(problems).toEqual([]);
      await rt.poller.drain();
      expect(await snapshot()).toBe(before);
    },
    120_000,
  );
});

describe('any other field shaped to trip a String()', () => {
  const FIELDS = [
    'type',
    'event',
    'name',
    'timestamp',
    'originalTimestamp',
    'sentAt',
    'context',
    'integrations',
    'writeKey',
    'groupId',
    'previousId',
    'body.sentAt',
    'body.writeKey',
  ];
  it.each(SHAPES)(
    'POST %s: never a 5xx, a refusal in plain text',
    async (path) => {
      const problems: string[] = [];
      for (const field of FIELDS) {
        for (const [name, value] of TYPE_CONFUSIONS) {
          const answer = await post(path, bodyWith(path, field, value));
          const refusedClearly = answer.status >= 400 && answer.status < 500 && answer.text.trim() !== '';
          if (answer.status !== 200 && !refusedClearly) problems.push(`${field} ${name}: ${seen(answer)}`);
        }
      }
      expect(problems).toEqual([]);
      await rt.poller.drain();
    },
    120_000,
  );
});

describe('objects shaped like toString and valueOf where an event carries data', () => {
  it('are stored and delivered as they came', async () => {
    const data = { toString: 'x', valueOf: 1, constructor: { name: 'y' }, list: [{ toString: 'z' }] };
    const event = { ...EVENT, messageId: 'data-1', properties: data, context: { traits: data, toString: 'c' }, traits: data };
    expect((await post('/v1/track', JSON.stringify(event))).status).toBe(200);
    const delivered = () => hook.received.filter((r) => (r.json as { messageId?: unknown }).messageId === 'data-1');
    const drained = async () => {
      await rt.poller.drain();
      return delivered().length;
    };
    await waitFor('the event delivered', drained, (n) => n > 0, { everyMs: 50 });
    expect(delivered()).toHaveLength(1);
    expect(delivered()[0]!.json).toMatchObject({ messageId: 'data-1', properties: data, traits: data, context: { traits: data, toString: 'c' } });
  }, 60_000);
});
