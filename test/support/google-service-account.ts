import { createVerify, generateKeyPairSync } from 'node:crypto';
import { clearTokenCache } from '../../shared/destinations/google/service-account';
import { json, startDestinationServer, type DestinationServer, type ReceivedRequest } from './destination-server';
import { allowLocalAddresses } from './server-batch';

/**
 * Google's service-account token endpoint played on a local server: a key pair made for the test, the key
 * text a destination is configured with, and a `/token` route that checks the JWT bearer assertion against
 * the public key (RS256, `iss`, `aud`, `scope`, an hour's `exp`) as Google's OAuth server does, answering
 * `invalid_grant` otherwise. https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
export interface GoogleTokens {
  /** The service account key file text (JSON) whose token_uri is the local server. */
  keyText: string;
  /** Tokens issued so far, newest last, with the scope asked for. */
  issued: { token: string; scope: string }[];
}

export const CLIENT_EMAIL = 'weir-test@weir-project.iam.gserviceaccount.com';

function claimsOf(assertion: string, publicKey: string): Record<string, unknown> | undefined {
  const [header, claims, signature] = assertion.split('.');
  if (!header || !claims || !signature) return undefined;
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'RS256') return undefined;
  const valid = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature, 'base64url'));
  return valid ? (JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>) : undefined;
}

export function serveGoogleTokens(server: DestinationServer): GoogleTokens {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const tokenUri = `${server.url}/token`;
  const issued: GoogleTokens['issued'] = [];
  server.on('/token', (req: ReceivedRequest, res) => {
    const form = new URLSearchParams(req.body);
    const claims = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' ? claimsOf(form.get('assertion') ?? '', publicKey) : undefined;
    const now = Date.now() / 1000;
    const fine =
      claims &&
      claims.iss === CLIENT_EMAIL &&
      claims.aud === tokenUri &&
      typeof claims.scope === 'string' &&
      typeof claims.iat === 'number' &&
      Math.abs(claims.iat - now) < 60 &&
      claims.exp === claims.iat + 3600;
    if (!fine) return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' })(req, res);
    const token = `ya29.test-${issued.length + 1}`;
    issued.push({ token, scope: claims.scope as string });
    json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' })(req, res);
  });
  const keyText = JSON.stringify({
    type: 'service_account',
    project_id: 'weir-project',
    client_email: CLIENT_EMAIL,
    private_key: privateKey,
    token_uri: tokenUri,
  });
  return { keyText, issued };
}

/**
 * For a suite calling Google's APIs: local addresses allowed, and for each test a fresh local server with the
 * token endpoint (the token cache cleared first), closed after it.
 */
export function googleServerPerTest(): { server: DestinationServer; tokens: GoogleTokens } {
  const google = {} as { server: DestinationServer; tokens: GoogleTokens };
  allowLocalAddresses();
  beforeEach(async () => {
    clearTokenCache();
    google.server = await startDestinationServer();
    google.tokens = serveGoogleTokens(google.server);
  });
  afterEach(() => google.server.close());
  return google;
}
