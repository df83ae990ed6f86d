import * as z from 'zod';
import { Success } from '../../domain/success';
import { CredentialKeyParams, CredentialPut, CredentialView } from '../../domain/credentials/schemas';
import { route } from './define';

/** Control plane: credentials for transformations (Basic email:token or Bearer). */
// One line per route: the manifest reads as a table.
// prettier-ignore
export const CREDENTIALS_ROUTES = [
  route({ method: 'GET', path: '/credentials', fn: 'credentials', auth: 'account', summary: "List credentials: keys, isSecret and times, and the values of those that are not secret", response: z.object({ credentials: z.array(CredentialView) }) }),
  route({ method: 'PUT', path: '/credentials/{key}', fn: 'credentials', auth: 'account', summary: 'Create or replace a credential that transformations read with getCredential(key); a secret is never shown again', params: CredentialKeyParams, body: CredentialPut, response: z.object({ credential: CredentialView }) }),
  route({ method: 'DELETE', path: '/credentials/{key}', fn: 'credentials', auth: 'account', summary: 'Delete a credential', params: CredentialKeyParams, response: Success }),
] as const;
