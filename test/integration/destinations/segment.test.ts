import { combine } from '../../../shared/destinations/batching';
import { segment } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Segment, from its "HTTP API Source" documentation (segment.com/docs/connections/sources/catalog/libraries/server/
 * http-api: Basic authentication, Max request size, Regional configuration, Identify, Track, Page, Screen, Group,
 * Alias, Batch, Errors and its Deduplication note), "User Deletion and Suppression", and the Public API's "Create
 * Workspace Regulation" (CreateWorkspaceRegulationV1Input). Expected requests are written out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => segment.config.parse({ writeKey: 'abc123', ...extra });
// "Basic authentication": base64 of "abc123:" is YWJjMTIzOg==.
const AUTH = 'Basic YWJjMTIzOg==';
const at = '2012-12-02T00:30:08.276Z';
const context = { ip: '24.5.68.47', library: { name: 'analytics-node', version: '1.0.0' } };
// What the pipeline adds on the way in: none of it reaches Segment.
const hop = { receivedAt: '2026-11-23T10:00:01.000Z', sentAt: '2026-11-23T10:00:00.500Z', originalTimestamp: at, request_ip: '10.0.0.1', weirId: 'w-1' };
const base = { messageId: 'm-1', userId: '019mr8mf4r', anonymousId: 'a-1', timestamp: at, context, ...hop };

const batchOf = (call: Record<string, unknown>, userId = 'a-1', host = 'https://api.segment.io') =>
  jsonPost(`${host}/v1/batch`, { 'Content-Type': 'application/json', Authorization: AUTH }, { batch: [call] }, userId);
const common = { messageId: 'm-1', userId: '019mr8mf4r', anonymousId: 'a-1', timestamp: at, context };

describe('Segment transform (HTTP Tracking API, POST /v1/batch)', () => {
  it('identify: the call with its traits, messageId kept, the pipeline hop fields left out (Identify)', () => {
    const traits = { email: 'pgibbons@example.com', name: 'Peter Gibbons', industry: 'Technology' };
    expect(segment.transform!({ ...base, type: 'identify', traits }, config())).toEqual([batchOf({ ...common, type: 'identify', traits })]);
  });

  it('track: event and properties, integrations passed on (Track, Selecting Destinations)', () => {
    const message = {
      ...base,
      type: 'track',
      event: 'Item Purchased',
      properties: { name: 'Mat', revenue: 14.99 },
      integrations: { All: false, Mixpanel: true },
    };
    expect(segment.transform!(message, config())).toEqual([
      batchOf({ ...common, type: 'track', event: 'Item Purchased', properties: { name: 'Mat', revenue: 14.99 }, integrations: { All: false, Mixpanel: true } }),
    ]);
  });

  it('page and screen: name, category and properties (Page, Screen)', () => {
    expect(segment.transform!({ ...base, type: 'page', name: 'Tracking HTTP API', category: 'Docs', properties: { path: '/docs' } }, config())).toEqual([
      batchOf({ ...common, type: 'page', name: 'Tracking HTTP API', category: 'Docs', properties: { path: '/docs' } }),
    ]);
    expect(segment.transform!({ ...base, type: 'screen', name: 'Home' }, config())).toEqual([batchOf({ ...common, type: 'screen', name: 'Home' })]);
  });

  it('group: groupId and the group traits (Group)', () => {
    const traits = { name: 'Initech', industry: 'Technology', employees: 420 };
    expect(segment.transform!({ ...base, type: 'group', groupId: '8e9df332ac', traits }, config())).toEqual([
      batchOf({ ...common, type: 'group', groupId: '8e9df332ac', traits }),
    ]);
  });

  it('alias: previousId and userId (Alias)', () => {
    const message = { type: 'alias', previousId: '39239-239239-239239-23923', userId: '019mr8mf4r', messageId: 'm-2', timestamp: at };
    expect(segment.transform!(message, config())).toEqual([batchOf({ ...message }, '')]);
  });

  it('the event time is its timestamp; a messageId of 100 characters or more becomes its SHA-256 (Errors, Deduplication)', () => {
    const call = (message: Record<string, unknown>) =>
      (segment.transform!({ type: 'track', event: 'x', userId: 'u', ...message }, config())[0]!.body.JSON.batch as Record<string, unknown>[])[0]!;
    expect(call({ originalTimestamp: at }).timestamp).toBe(at);
    expect(call({ messageId: 'x'.repeat(99) }).messageId).toBe('x'.repeat(99));
    expect(call({ messageId: 'x'.repeat(100) }).messageId).toMatch(/^[0-9a-f]{64}$/);
    expect(call({ messageId: 'x'.repeat(100) }).messageId).toBe(call({ messageId: 'x'.repeat(100) }).messageId);
    expect(call({}).messageId).toBeUndefined();
  });

  it('sends to Oregon by default, to Dublin for an EU workspace, or to baseUrl (Regional configuration)', () => {
    const endpoint = (extra: Record<string, unknown>) => segment.transform!({ ...base, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({})).toBe('https://api.segment.io/v1/batch');
    expect(endpoint({ region: 'EU' })).toBe('https://events.eu1.segmentapis.com/v1/batch');
    expect(endpoint({ region: 'EU', baseUrl: 'http://proxy.local:9000/seg/' })).toBe('http://proxy.local:9000/seg/v1/batch');
  });

  it('batches up to 2,500 calls and under 500 KB a request; one-call requests combine in their order (Batch, Errors)', () => {
    expect(segment.batch).toEqual({ maxEvents: 2500, maxBytes: 490_000, lists: ['JSON.batch'] });
    const requests = ['identify', 'track', 'page'].map(
      (type, i) => segment.transform!({ type, event: 'e', userId: `u-${i}`, messageId: `m-${i}` }, config())[0]!,
    );
    expect((combine(segment.batch!, requests).body.JSON.batch as { type: string; messageId: string }[]).map((c) => [c.type, c.messageId])).toEqual([
      ['identify', 'm-0'],
      ['track', 'm-1'],
      ['page', 'm-2'],
    ]);
  });

  it('validates the configuration: writeKey required, US or EU, an http(s) baseUrl, no unknown keys', () => {
    expect(segment.config.safeParse({ writeKey: 'k', publicApiToken: 't', region: 'EU' }).success).toBe(true);
    expect(segment.config.safeParse({}).success).toBe(false);
    expect(segment.config.safeParse({ writeKey: 'k', region: 'APAC' }).success).toBe(false);
    expect(segment.config.safeParse({ writeKey: 'k', baseUrl: 'ftp://x' }).success).toBe(false);
    expect(segment.config.safeParse({ writeKey: 'k', apiHost: 'x' }).success).toBe(false);
  });

  it('refuses what the Tracking API would drop, naming why (Errors: identifier, event name, 32 KB an event)', () => {
    const cfg = config();
    expectRefusals(segment, cfg, [
      [{ type: 'track', event: 'x' }, 'Segment needs a userId or an anonymousId on the track event'],
      [{ type: 'track', userId: 'u' }, 'a track event needs an event name'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
      [{ type: 'alias', userId: 'u' }, 'a Segment alias needs a userId and a previousId'],
      [{ type: 'alias', anonymousId: 'a', previousId: 'p' }, 'a Segment alias needs a userId and a previousId'],
      [{ type: 'merge', userId: 'u' }, 'message type merge is not supported by Segment'],
      [
        { type: 'track', userId: 'u', event: 'x', properties: { text: 'é'.repeat(16_400) } },
        expect.stringMatching(/^the event is 328\d\d bytes; Segment's batch endpoint takes at most 32 KB an event$/),
      ],
    ]);
  });
});

describe('Segment user deletion (Public API, Create Workspace Regulation)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = (extra: Record<string, unknown> = { publicApiToken: 'TOKEN' }) => config({ baseUrl: vendor.url, ...extra });

  it('creates one SUPPRESS_WITH_DELETE regulation of the userIds with the token as bearer, 5,000 a call', async () => {
    vendor.on('/regulations', json(200, { data: { regulateId: '1qJkfE1tpwvQcklImGksLN629wn' } }));
    const users = Array.from({ length: 5001 }, (_, i) => ({ userId: `u-${i}` }));
    expect(await segment.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.headers['content-type']])).toEqual([
      ['POST', '/regulations', 'Bearer TOKEN', 'application/json'],
      ['POST', '/regulations', 'Bearer TOKEN', 'application/json'],
    ]);
    const [first, second] = vendor.received.map((r) => r.json as { regulationType: string; subjectType: string; subjectIds: string[] });
    expect({ ...first, subjectIds: first!.subjectIds.length }).toEqual({ regulationType: 'SUPPRESS_WITH_DELETE', subjectType: 'USER_ID', subjectIds: 5000 });
    expect(second).toEqual({ regulationType: 'SUPPRESS_WITH_DELETE', subjectType: 'USER_ID', subjectIds: ['u-5000'] });
  });

  it('without a Public API token deletion is unsupported, saying what to set, and nothing is sent', async () => {
    expect(await segment.deleteUsers!([{ userId: 'u-1' }], cfg({}), io)).toEqual({
      status: 'unsupported',
      reason: 'Segment deletes users through its Public API: set publicApiToken',
    });
    expect(vendor.received).toEqual([]);
  });

  it('fails retryably on a 429, finally on a 422 with what Segment said', async () => {
    vendor.on('/regulations', json(429, { errors: [{ type: 'too-many-requests', message: 'Too many requests' }] }));
    expect(await segment.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toMatchObject({ status: 'failed', retryable: true });
    vendor.on('/regulations', json(422, { errors: [{ type: 'validation', message: 'subjectIds: too many' }] }));
    expect(await segment.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Segment answered 422: {"errors":[{"type":"validation","message":"subjectIds: too many"}]}',
    });
  });
});
