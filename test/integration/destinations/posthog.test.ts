import type { ServerResponse } from 'node:http';
import { posthog } from '../../support/destination-types';
import type { DestinationRequest } from '../../../shared/destinations/types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * PostHog, from its documentation: posthog.com/docs/api/capture ("Capture and batch API endpoints": Batch events,
 * Identify, Pageview, Screen view, Group identify, Alias), posthog.com/docs/privacy/data-deletion ("How to delete
 * persons and related events using the API") and posthog.com/docs/api/persons (List all persons, Delete persons).
 */
const config = (extra: Record<string, unknown> = {}) => posthog.config.parse({ teamApiKey: 'phc_KEY', ...extra });
const transform = (message: Record<string, unknown>, extra?: Record<string, unknown>) => posthog.transform!(message, config(extra));

const uuid = '9f3c8a52-6a3b-4f0e-9b1e-2d4c6e8f0a1b';
const base = { messageId: uuid, userId: 'u-1', anonymousId: 'a-1', timestamp: '2026-11-23T10:00:00.000Z', context: { ip: '203.0.113.9' } };
// What every event carries: the sender as $lib, the user's address as $ip, the time and the uuid.
const sent = { $lib: 'weir', $ip: '203.0.113.9' };
const when = { timestamp: '2026-11-23T10:00:00.000Z', uuid };

/** Batch events: POST /batch/ with the project API key and the events under `batch`. */
const batchPost = (batch: unknown[], endpoint = 'https://us.i.posthog.com/batch/') =>
  jsonPost(endpoint, { 'Content-Type': 'application/json' }, { api_key: 'phc_KEY', batch });

describe('PostHog transform (capture API, /batch/)', () => {
  it('sends a track as an event with distinct_id, properties, ISO timestamp and the messageId as uuid (Batch events)', () => {
    expect(transform({ ...base, type: 'track', event: 'Order Completed', properties: { revenue: 42 } })).toEqual([
      batchPost([{ event: 'Order Completed', distinct_id: 'u-1', properties: { revenue: 42, ...sent }, ...when }]),
    ]);
  });

  it('turns a messageId that is not a UUID into one, the same every time, and sends the anonymous id as distinct_id without a userId', () => {
    const [request] = transform({ type: 'track', event: 'x', anonymousId: 'a-1', messageId: 'msg-1' });
    const [event] = request!.body.JSON.batch as { uuid: string }[];
    expect(event).toEqual({
      event: 'x',
      distinct_id: 'a-1',
      // Anonymous vs identified events: no person profile until the user is identified, as PostHog's JavaScript SDK sends them.
      properties: { $process_person_profile: false, $lib: 'weir' },
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    const [again] = transform({ type: 'track', event: 'x', anonymousId: 'a-1', messageId: 'msg-1' });
    const [other] = transform({ type: 'track', event: 'x', anonymousId: 'a-1', messageId: 'msg-2' });
    expect((again!.body.JSON.batch as { uuid: string }[])[0]!.uuid).toBe(event!.uuid);
    expect((other!.body.JSON.batch as { uuid: string }[])[0]!.uuid).not.toBe(event!.uuid);
  });

  it('sends an identify as $identify with the traits under $set and the anonymous id as $anon_distinct_id (Identify)', () => {
    const message = {
      ...base,
      type: 'identify',
      traits: { email: 'ada@example.com' },
      context: { ...base.context, traits: { plan: 'pro' } },
    };
    expect(transform(message)).toEqual([
      batchPost([
        {
          event: '$identify',
          distinct_id: 'u-1',
          properties: { $set: { plan: 'pro', email: 'ada@example.com' }, $anon_distinct_id: 'a-1', ...sent },
          ...when,
        },
      ]),
    ]);
    const [anonymous] = transform({ type: 'identify', anonymousId: 'a-1', traits: { plan: 'free' } });
    expect(anonymous!.body.JSON.batch).toEqual([{ event: '$identify', distinct_id: 'a-1', properties: { $set: { plan: 'free' }, $lib: 'weir' } }]);
  });

  it('sends a page as $pageview with $current_url, from properties.url or the page context (Pageview)', () => {
    expect(transform({ ...base, type: 'page', name: 'Pricing', properties: { url: 'https://shop.example/pricing' } })).toEqual([
      batchPost([
        {
          event: '$pageview',
          distinct_id: 'u-1',
          properties: { url: 'https://shop.example/pricing', name: 'Pricing', $current_url: 'https://shop.example/pricing', ...sent },
          ...when,
        },
      ]),
    ]);
    const [fromContext] = transform({ type: 'page', anonymousId: 'a-1', context: { page: { url: 'https://shop.example/cart' } } });
    expect(fromContext!.body.JSON.batch).toEqual([
      { event: '$pageview', distinct_id: 'a-1', properties: { $current_url: 'https://shop.example/cart', $process_person_profile: false, $lib: 'weir' } },
    ]);
  });

  it('sends a screen as $screen with $screen_name (Screen view)', () => {
    expect(transform({ ...base, type: 'screen', name: 'Home', properties: { tab: 'feed' } })).toEqual([
      batchPost([{ event: '$screen', distinct_id: 'u-1', properties: { tab: 'feed', $screen_name: 'Home', ...sent }, ...when }]),
    ]);
  });

  it('sends a group as $groupidentify with $group_type, $group_key and $group_set, on the "$<type>_<key>" distinct_id (Group identify)', () => {
    const message = { ...base, type: 'group', groupId: 'g-1', traits: { groupType: 'company', name: 'Acme', plan: 'enterprise' } };
    expect(transform(message)).toEqual([
      batchPost([
        {
          event: '$groupidentify',
          distinct_id: '$company_g-1',
          properties: { $group_type: 'company', $group_key: 'g-1', $group_set: { name: 'Acme', plan: 'enterprise' }, ...sent },
          ...when,
        },
      ]),
    ]);
    const [untyped] = transform({ type: 'group', groupId: 42, anonymousId: 'a-1' });
    expect(untyped!.body.JSON.batch).toEqual([
      {
        event: '$groupidentify',
        distinct_id: '$group_42',
        properties: { $group_type: 'group', $group_key: '42', $group_set: {}, $lib: 'weir' },
      },
    ]);
  });

  it('sends an alias as $create_alias: the known userId as distinct_id, the previousId as alias (Alias)', () => {
    expect(transform({ ...base, type: 'alias', previousId: 'a-0' })).toEqual([
      batchPost([{ event: '$create_alias', distinct_id: 'u-1', properties: { alias: 'a-0', ...sent }, ...when }]),
    ]);
  });

  it('sends to the configured instance: EU Cloud or a self-hosted URL', () => {
    const track = { ...base, type: 'track', event: 'x' };
    expect(transform(track, { yourInstance: 'https://eu.i.posthog.com' })[0]!.endpoint).toBe('https://eu.i.posthog.com/batch/');
    expect(transform(track, { yourInstance: 'http://posthog.internal:8000/' })[0]!.endpoint).toBe('http://posthog.internal:8000/batch/');
  });

  it('refuses what PostHog cannot take, naming why', () => {
    const cfg = { teamApiKey: 'phc_KEY' };
    expectRefusals(posthog, cfg, [
      [{ type: 'track', event: 'x' }, 'PostHog needs a userId or an anonymousId on the track event (distinct_id)'],
      [{ type: 'track', userId: 'u-1' }, 'a track event needs an event name'],
      [{ type: 'alias', userId: 'u-1' }, 'a PostHog alias needs both userId and previousId'],
      [{ type: 'group', userId: 'u-1' }, 'a PostHog group event needs a groupId'],
      [{ type: 'merge', userId: 'u-1' }, 'message type merge is not supported by PostHog'],
    ]);
  });

  it('validates its configuration: teamApiKey required, http(s) instance, no unknown keys', () => {
    expect(posthog.config.safeParse({}).success).toBe(false);
    expect(posthog.config.safeParse({ teamApiKey: 'k', yourInstance: 'ftp://x.example' }).success).toBe(false);
    expect(posthog.config.safeParse({ teamApiKey: 'k', host: 'https://x.example' }).success).toBe(false);
  });
});

describe('PostHog user deletion (persons API: find by distinct_id, then delete with events)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = () => config({ personalApiKey: 'phx_KEY', projectId: '123', yourInstance: vendor.url });
  const LIST = '/api/projects/123/persons/';
  /** The persons list answers with the person of u-1 (id 7) and no one for any other distinct_id. */
  const listing = () =>
    vendor.on(LIST, (req, res: ServerResponse) =>
      json(200, { next: null, results: req.query.distinct_id === 'u-1' ? [{ id: 7, uuid, distinct_ids: ['u-1', 'a-1'] }] : [] })(req, res),
    );
  const deleting = (status: number, body?: unknown) =>
    vendor.on(`${LIST}7/`, body === undefined ? (_req, res) => res.writeHead(status).end() : json(status, body));

  it('looks the person up by distinct_id, then deletes it and its events, with the personal API key as Bearer', async () => {
    listing();
    deleting(204);
    expect(await posthog.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map(({ method, path, query, headers }) => ({ method, path, query, authorization: headers.authorization }))).toEqual([
      { method: 'GET', path: LIST, query: { distinct_id: 'u-1' }, authorization: 'Bearer phx_KEY' },
      { method: 'DELETE', path: `${LIST}7/`, query: { delete_events: 'true' }, authorization: 'Bearer phx_KEY' },
    ]);
  });

  it('answers not_found when no person has the distinct_id, and deletes nothing', async () => {
    listing();
    expect(await posthog.deleteUsers!([{ userId: 'u-9' }], cfg(), io)).toEqual({
      status: 'not_found',
      reason: 'PostHog has no person with distinct_id u-9',
    });
    expect(vendor.received.map((r) => r.method)).toEqual(['GET']);
  });

  it('completes when some users had no person, naming them', async () => {
    listing();
    deleting(204);
    expect(await posthog.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-9' }], cfg(), io)).toEqual({
      status: 'completed',
      detail: 'no person with distinct_id u-9',
    });
  });

  it('maps the delete answers: 200 completed, 404 not found, 5xx retryable, other 4xx final, with what PostHog said', async () => {
    const cases: [number, unknown][] = [
      [200, { status: 'completed' }],
      [404, { status: 'not_found', reason: 'PostHog has no person with distinct_id u-1' }],
      [500, { status: 'failed', retryable: true, error: 'PostHog answered 500: {"detail":"x"}' }],
      [400, { status: 'failed', retryable: false, error: 'PostHog answered 400: {"detail":"x"}' }],
    ];
    listing();
    for (const [status, expected] of cases) {
      deleting(status, { detail: 'x' });
      expect(await posthog.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual(expected);
    }
  });

  it('stops at a failed lookup with what PostHog said', async () => {
    vendor.on(LIST, json(401, { type: 'authentication_error', detail: 'Invalid Personal API key.' }));
    expect(await posthog.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'PostHog answered 401: {"type":"authentication_error","detail":"Invalid Personal API key."}',
    });
  });

  it('is unsupported without a personal API key and project id, and sends nothing', async () => {
    const reason = 'PostHog deletes persons only through its private API: set personalApiKey and projectId';
    expect(await posthog.deleteUsers!([{ userId: 'u-1' }], config({ yourInstance: vendor.url, projectId: '123' }), io)).toEqual({
      status: 'unsupported',
      reason,
    });
    expect(await posthog.deleteUsers!([{ userId: 'u-1' }], config({ yourInstance: vendor.url, personalApiKey: 'phx_KEY' }), io)).toEqual({
      status: 'unsupported',
      reason,
    });
    expect(vendor.received).toEqual([]);
  });

  it('asks the app hosts for PostHog Cloud (us.posthog.com, eu.posthog.com), not the ".i." ingestion hosts', async () => {
    const endpoints: string[] = [];
    const send = async (r: DestinationRequest) => {
      endpoints.push(r.endpoint);
      return { status: 200, response: { results: [] }, retryable: false };
    };
    for (const yourInstance of [undefined, 'https://eu.i.posthog.com']) {
      await posthog.deleteUsers!([{ userId: 'u-1' }], config({ personalApiKey: 'k', projectId: '123', ...(yourInstance && { yourInstance }) }), { send });
    }
    expect(endpoints).toEqual(['https://us.posthog.com/api/projects/123/persons/', 'https://eu.posthog.com/api/projects/123/persons/']);
  });
});
