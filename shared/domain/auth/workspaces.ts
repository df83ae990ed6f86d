import * as z from 'zod';
import { NotFoundError } from '../errors';
import { newId, now } from '../ids';
import { hashSecret, issueToken, type IssuedToken } from './tokens';
import type { WorkspaceRepository } from './ports';
import { validate } from '../validation';

export const WorkspaceName = z.string().trim().min(1).max(200);
export const Email = z.email().transform((email) => email.toLowerCase());

export interface WorkspaceCredentials {
  workspaceId: string;
  email: string;
  token: string;
}

const parse = <T>(schema: z.ZodType<T>, value: unknown, field: string): T => validate(schema, value, field);

/** Creates a workspace with one user and that user's first personal access token. */
export async function createWorkspace(
  workspaces: WorkspaceRepository,
  input: { name: string; email: string; token?: string; workspaceId?: string },
): Promise<WorkspaceCredentials> {
  const name = parse(WorkspaceName, input.name, 'name');
  const email = parse(Email, input.email, 'email');
  const workspaceId = input.workspaceId ?? newId();
  const token = issueToken(input.token);
  await workspaces.createWorkspace({ workspaceId, name, createdAt: now() }, email, token);
  return { workspaceId, email, token: token.token };
}

/** Issues another token for an existing user of a workspace. */
export async function createToken(
  workspaces: WorkspaceRepository,
  input: { workspaceId: string; email: string },
): Promise<WorkspaceCredentials & { tokenId: string }> {
  const email = parse(Email, input.email, 'email');
  const token: IssuedToken = issueToken();
  await workspaces.addToken(input.workspaceId, email, token, now());
  return { workspaceId: input.workspaceId, email, token: token.token, tokenId: token.tokenId };
}

/**
 * Makes sure the operator's bootstrap credentials work: when no token with that value exists yet, a
 * workspace is created for them. Running it again changes nothing.
 */
export async function ensureBootstrapWorkspace(workspaces: WorkspaceRepository, input: { email: string; token: string }): Promise<WorkspaceCredentials> {
  const existing = await workspaces.findToken(hashSecret(input.token));
  if (existing) return { workspaceId: existing.workspaceId, email: existing.email, token: input.token };
  return createWorkspace(workspaces, { name: 'Default workspace', email: input.email, token: input.token });
}

/** Revokes a token given either its value or its id (ids are listed per workspace). */
export async function revokeToken(
  workspaces: WorkspaceRepository,
  input: { token: string } | { tokenId: string; workspaceId: string },
): Promise<{ tokenId: string; workspaceId: string }> {
  const record =
    'token' in input
      ? await workspaces.findToken(hashSecret(input.token))
      : (await workspaces.listTokens(input.workspaceId)).find((t) => t.tokenId === input.tokenId);
  if (!record) throw new NotFoundError('token not found');
  await workspaces.revokeToken(record, now());
  return { tokenId: record.tokenId, workspaceId: record.workspaceId };
}
