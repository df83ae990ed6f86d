import { webhook } from '../../support/destination-types';
import { buildRequests } from '../../../shared/destinations';
import { encodeBody, restRequest, urlWithParams } from '../../../shared/destinations/request';
import { isRetryableStatus } from '../../../shared/destinations/http-client';
import { expectRefusals } from '../../support/vendor-suite';

/**
 * The webhook destination, rule by rule, as the reference describes it (shared/reference/transformations.md
 * §4 "Webhook destination"): one request per event, method rules, GET params flattening, header rules.
 */
const URL_ = 'https://hooks.example.com/in';
const transform = (message: Record<string, unknown>, config: Record<string, unknown> = {}) =>
  webhook.transform!(message, webhook.config.parse({ webhookUrl: URL_, ...config }));

const empty = { JSON: {}, JSON_ARRAY: {}, XML: {}, FORM: {} };

describe('webhook transform', () => {
  it('POSTs the whole event as JSON by default, with userId taken from anonymousId', () => {
    const message = { type: 'track', event: 'Signed Up', anonymousId: 'a1', userId: 'u1', properties: { plan: 'pro' } };
    expect(transform(message)).toEqual([
      {
        version: '1',
        type: 'REST',
        method: 'POST',
        endpoint: URL_,
        headers: { 'content-type': 'application/json' },
        params: {},
        body: { ...empty, JSON: message },
        files: {},
        userId: 'a1',
      },
    ]);
  });

  it('omits userId when the event has no anonymousId', () => {
    const [request] = transform({ type: 'track', userId: 'u1' });
    expect(request).not.toHaveProperty('userId');
  });

  it.each(['PUT', 'PATCH'])('sends %s like POST: the event as JSON with a content type', (method) => {
    const message = { type: 'identify', userId: 'u1', traits: { email: 'e@x.io' } };
    const [request] = transform(message, { webhookMethod: method });
    expect(request).toMatchObject({
      method,
      headers: { 'content-type': 'application/json' },
      params: {},
      body: { ...empty, JSON: message },
    });
  });

  it.each(['GET', 'DELETE'])('sends %s with the flattened properties as query parameters and no body or content type', (method) => {
    const message = {
      type: 'track',
      anonymousId: 'a1',
      properties: { revenue: 9.5, tags: ['x', 'y'], nested: { deep: { on: true } }, none: null, list: [], obj: {} },
    };
    expect(transform(message, { webhookMethod: method })).toEqual([
      {
        version: '1',
        type: 'REST',
        method,
        endpoint: URL_,
        headers: {},
        params: { revenue: '9.5', 'tags[0]': 'x', 'tags[1]': 'y', 'nested.deep.on': 'true', none: '', list: '', obj: '' },
        body: empty,
        files: {},
        userId: 'a1',
      },
    ]);
  });

  it('flattens the traits of an identify (top level and context.traits) for GET', () => {
    const [request] = transform(
      { type: 'identify', traits: { name: 'Ada' }, context: { traits: { email: 'ada@example.com', address: { city: 'Oslo' } } } },
      { webhookMethod: 'GET' },
    );
    expect(request!.params).toEqual({ email: 'ada@example.com', 'address.city': 'Oslo', name: 'Ada' });
  });

  it('lower-cases configured header names, skips empty names, and adds the event header with its case kept', () => {
    const [request] = transform(
      { type: 'track', header: { 'X-Trace': 'abc', Empty: '', Num: 5 } },
      {
        headers: [
          { from: 'X-API-Key', to: 'k1' },
          { from: '', to: 'skipped' },
        ],
      },
    );
    expect(request!.headers).toEqual({ 'content-type': 'application/json', 'x-api-key': 'k1', 'X-Trace': 'abc' });
    expect(request!.body.JSON).toEqual({ type: 'track' });
  });

  it('replaces the endpoint with fullPath, appends appendPath, and removes both from the body', () => {
    const [fromMessage] = transform({ type: 'track', fullPath: 'https://other.example.com/x', appendPath: '/y?z=1' });
    expect(fromMessage!.endpoint).toBe('https://other.example.com/x/y?z=1');
    expect(fromMessage!.body.JSON).toEqual({ type: 'track' });
    const [fromIntegrations] = transform({ type: 'track', integrations: { WEBHOOK: { fullPath: 'https://third.example.com/a' } } });
    expect(fromIntegrations!.endpoint).toBe('https://third.example.com/a');
    expect(fromIntegrations!.body.JSON).toEqual({ type: 'track', integrations: { WEBHOOK: {} } });
  });

  it('keeps an appendPath under the URL it extends: same origin, no user, a path below, no dot segment', () => {
    const at = (base: string, appendPath: string) => buildRequests(webhook, { type: 'track', appendPath }, { webhookUrl: base });
    expect(at('https://api.example.com', '/v1/x?y=1')).toMatchObject({ ok: true, requests: [{ endpoint: 'https://api.example.com/v1/x?y=1' }] });
    expect(at(URL_, '.json')).toMatchObject({ ok: true, requests: [{ endpoint: `${URL_}.json` }] });
    for (const [base, appendPath] of [
      ['https://api.example.com', '.evil.com/x'],
      ['https://api.example.com', ':8443/x'],
      ['https://api.example.com', '@evil.com'],
      ['https://api.example.com', '//evil.com/x'],
      [URL_, '/../../admin'],
      [URL_, '/./x'],
      [URL_, '/%2E%2E/admin'],
      [URL_, '/..%2Fadmin'],
      [URL_, '\\..\\admin'],
      [URL_, '/..;/admin'],
      [URL_, '/a\nHost: evil'],
    ]) {
      const outcome = at(base!, appendPath!);
      expect([appendPath, outcome.ok, !outcome.ok && outcome.error]).toEqual([
        appendPath,
        false,
        expect.stringMatching(/^appendPath .*: it may only add to the path of https:\/\/\S+$/),
      ]);
    }
  });

  it('lets configured headers win over the event header, whatever its case, and never takes framing headers from it', () => {
    const [request] = transform(
      { type: 'track', header: { AUTHORIZATION: 'Bearer event', 'x-api-key': 'event', Host: 'evil', 'Content-Length': '1', 'X-Ok': 'yes' } },
      {
        headers: [
          { from: 'Authorization', to: 'Bearer configured' },
          { from: 'X-API-Key', to: 'k1' },
        ],
      },
    );
    expect(request!.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer configured', 'x-api-key': 'k1', 'X-Ok': 'yes' });
    expectRefusals(webhook, { webhookUrl: URL_ }, [
      [{ type: 'track', header: { 'X-A': 'a\r\nX-B: b' } }, 'header X-A holds a line break or a control character'],
      [{ type: 'track', header: { 'Bad Name': 'x' } }, 'header "Bad Name" is not a valid header name'],
    ]);
  });

  it('fills context.ip from request_ip when the event has none', () => {
    const [request] = transform({ type: 'track', request_ip: '203.0.113.9', context: { app: 'x' } });
    expect(request!.body.JSON).toEqual({ type: 'track', request_ip: '203.0.113.9', context: { app: 'x', ip: '203.0.113.9' } });
    const [kept] = transform({ type: 'track', request_ip: '203.0.113.9', context: { ip: '198.51.100.1' } });
    expect((kept!.body.JSON.context as { ip: string }).ip).toBe('198.51.100.1');
  });

  it('fails with the reference text when the URL is missing or not http(s)', () => {
    const noUrl = buildRequests(webhook, { type: 'track' }, {});
    expect(noUrl).toEqual({ ok: false, error: 'Invalid URL in destination config' });
    const badPath = buildRequests(webhook, { type: 'track', fullPath: 'ftp://x' }, { webhookUrl: URL_ });
    expect(badPath).toEqual({ ok: false, error: 'Invalid URL in destination config' });
  });

  it('never changes the event it was given', () => {
    const message = { type: 'track', header: { a: 'b' }, fullPath: 'https://x.example.com', context: {} };
    const copy = structuredClone(message);
    transform(message);
    expect(message).toEqual(copy);
  });
});

describe('request encoding', () => {
  const base = { method: 'POST' as const, endpoint: 'https://api.example.com/v1' };

  it('sends the last non-empty body kind: FORM over XML over JSON_ARRAY over JSON', () => {
    expect(encodeBody(restRequest({ ...base, json: { a: 1 } }))).toEqual({ body: '{"a":1}', contentType: 'application/json' });
    expect(encodeBody(restRequest({ ...base, json: { a: 1 }, jsonArray: { batch: [{ b: 2 }] } }))).toEqual({
      body: '[{"b":2}]',
      contentType: 'application/json',
    });
    expect(encodeBody(restRequest({ ...base, json: { a: 1 }, xml: { payload: '<a/>' } }))).toEqual({
      body: '<a/>',
      contentType: 'application/xml',
    });
    expect(encodeBody(restRequest({ ...base, json: { a: 1 }, form: { x: 'y z', o: { k: 1 } } }))).toEqual({
      body: 'x=y+z&o=%7B%22k%22%3A1%7D',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(encodeBody(restRequest(base))).toEqual({});
  });

  it('appends params to the endpoint query', () => {
    expect(urlWithParams(restRequest({ ...base, endpoint: 'https://api.example.com/v1?k=1', params: { a: 'b c' } }))).toBe(
      'https://api.example.com/v1?k=1&a=b+c',
    );
  });

  it('retries 5xx, 429 and 408, never other 4xx', () => {
    expect([500, 502, 503, 429, 408].map(isRetryableStatus)).toEqual([true, true, true, true, true]);
    expect([200, 400, 401, 403, 404, 413].map(isRetryableStatus)).toEqual([false, false, false, false, false, false]);
  });
});
