import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { WriteKeys, writeKeyOf } from '../../shared/domain/ingestion/write-keys';
import { createToken, revokeToken } from '../../shared/domain/auth/workspaces';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { authorizerEvent } from '../support/events';
import { AUTHORIZERS } from '../../shared/contract/functions';
import { ADMIN, basic, bearer, call, fileRuntime, loadHandler } from '../support/runtime';

type Authorizer = (event: ReturnType<typeof authorizerEvent>) => Promise<APIGatewayAuthorizerResult>;

const rt = fileRuntime();
let account: Authorizer;
let bearerOnly: Authorizer;
let admin: Authorizer;

beforeAll(async () => {
  // The authorizer modules read the table from the environment the runtime has just set, as in Lambda.
  account = loadHandler(AUTHORIZERS.account.entry);
  bearerOnly = loadHandler(AUTHORIZERS.bearer.entry);
  admin = loadHandler(AUTHORIZERS.admin.entry);
});

const effect = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement[0]?.Effect;

describe('the account authorizer (Basic email:token or Bearer)', () => {
  it('accepts Basic with the owner email and token, passing the workspace on', async () => {
    const ws = await rt.newWorkspace();
    const result = await account(authorizerEvent({ Authorization: basic(ws.email, ws.token) }));
    expect(effect(result)).toBe('Allow');
    expect(result.context).toMatchObject({ workspaceId: ws.workspaceId, email: ws.email });
  });

  it('accepts the email in any letter case', async () => {
    const ws = await rt.newWorkspace();
    const result = await account(authorizerEvent({ authorization: basic(ws.email.toUpperCase(), ws.token) }));
    expect(effect(result)).toBe('Allow');
  });

  it('accepts Bearer with the token alone', async () => {
    const ws = await rt.newWorkspace();
    expect(effect(await account(authorizerEvent({ Authorization: bearer(ws.token) })))).toBe('Allow');
  });

  it('refuses a right token with a wrong email', async () => {
    const ws = await rt.newWorkspace();
    const other = await rt.newWorkspace();
    const result = await account(authorizerEvent({ Authorization: basic(other.email, ws.token) }));
    expect(effect(result)).toBe('Deny');
    expect(result.context).toEqual({ error: 'Invalid Authorization Header' });
  });

  it('refuses an unknown token, a missing header and an unknown scheme, saying why', async () => {
    const ws = await rt.newWorkspace();
    const cases: [Record<string, string>, string][] = [
      [{ Authorization: basic(ws.email, 'weir_not-a-real-token') }, 'Invalid Authorization Header'],
      [{}, 'Authorization header is missing'],
      [{ Authorization: `Digest ${ws.token}` }, 'Authorization scheme Digest is not supported; use Basic or Bearer'],
      [{ Authorization: 'Basic bm9jb2xvbg==' }, 'Invalid Authorization Header'],
    ];
    for (const [headers, error] of cases) {
      const result = await account(authorizerEvent(headers));
      expect(effect(result)).toBe('Deny');
      expect(result.context).toEqual({ error });
    }
  });

  it('refuses a revoked token while the workspace other tokens keep working', async () => {
    const ws = await rt.newWorkspace();
    const second = await createToken(rt.workspaces, { workspaceId: ws.workspaceId, email: ws.email });
    await revokeToken(rt.workspaces, { token: ws.token });
    expect(effect(await account(authorizerEvent({ Authorization: bearer(ws.token) })))).toBe('Deny');
    expect(effect(await account(authorizerEvent({ Authorization: bearer(second.token) })))).toBe('Allow');
  });

  it('allows the whole stage, so a cached policy never refuses the next method', async () => {
    const ws = await rt.newWorkspace();
    const result = await account(authorizerEvent({ Authorization: bearer(ws.token) }));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Resource: 'arn:aws:execute-api:eu-west-1:123456789012:api123/prod/*' });
  });
});

describe('the bearer authorizer', () => {
  it('accepts Bearer and refuses Basic even with valid credentials', async () => {
    const ws = await rt.newWorkspace();
    expect(effect(await bearerOnly(authorizerEvent({ Authorization: bearer(ws.token) })))).toBe('Allow');
    const refused = await bearerOnly(authorizerEvent({ Authorization: basic(ws.email, ws.token) }));
    expect(effect(refused)).toBe('Deny');
    expect(refused.context?.error).toMatch(/use bearer/);
  });

  it('answers a refusal over HTTP with 401 JSON naming the reason', async () => {
    const missing = await call(rt.controlUrl, 'GET', '/v2/sources');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'Authorization header is missing' });
    const wrong = await call(rt.controlUrl, 'GET', '/v2/sources', { auth: bearer('weir_wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid Authorization Header' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="weir"');
  });
});

describe('the data-plane admin authorizer', () => {
  it('accepts the configured admin user and password and refuses anything else', async () => {
    expect(effect(await admin(authorizerEvent({ Authorization: basic(ADMIN.user, ADMIN.password) })))).toBe('Allow');
    const refusals: Record<string, string>[] = [
      { Authorization: basic(ADMIN.user, 'wrong') },
      { Authorization: basic('someone', ADMIN.password) },
      { Authorization: bearer(ADMIN.password) },
      {},
    ];
    for (const headers of refusals) {
      const result = await admin(authorizerEvent(headers));
      expect(effect(result)).toBe('Deny');
      expect(typeof result.context?.error).toBe('string');
    }
  });
});

describe('source write keys', () => {
  it('are read from the Basic user name or the other places clients put them, and name their source', async () => {
    const ws = await rt.newWorkspace();
    const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'web' } });
    const { id, writeKey } = created.body.source;
    const writeKeys = new WriteKeys(new CatalogRepository(rt.store));
    expect(writeKeyOf(basic(writeKey, ''), 'ignored')).toBe(writeKey);
    expect(writeKeyOf(undefined, undefined, '', writeKey)).toBe(writeKey);
    expect(() => writeKeyOf(undefined, undefined)).toThrow('Failed to read writeKey');
    expect(() => writeKeyOf(bearer(writeKey), undefined)).toThrow('Invalid Authorization Header');
    await expect(writeKeys.sourceOf(writeKey)).resolves.toMatchObject({ workspaceId: ws.workspaceId, source: { id, enabled: true } });
    await expect(writeKeys.sourceOf('nope')).rejects.toThrow('Invalid write key');
    await expect(writeKeys.sourceOf('x'.repeat(201))).rejects.toThrow('Invalid write key');
  });
});

describe('token storage', () => {
  it('never stores a token in plaintext', async () => {
    const ws = await rt.newWorkspace();
    const second = await createToken(rt.workspaces, { workspaceId: ws.workspaceId, email: ws.email });
    const { Items = [] } = await rt.store.doc.send(new ScanCommand({ TableName: rt.store.table }));
    const raw = JSON.stringify(Items);
    expect(Items.length).toBeGreaterThan(0);
    expect(raw).not.toContain(ws.token);
    expect(raw).not.toContain(second.token);
    expect(raw).not.toContain(ws.token.slice(5, 30));
  });
});
