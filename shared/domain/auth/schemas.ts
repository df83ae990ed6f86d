import * as z from 'zod';

/** A workspace as the table holds it. */
export const WorkspaceRecord = z.object({
  workspaceId: z.string(),
  name: z.string(),
  createdAt: z.iso.datetime(),
});
export type WorkspaceRecord = z.infer<typeof WorkspaceRecord>;

/** A personal access token as the table holds it: its hash and owner, never its value. */
export const TokenRecord = z.object({
  tokenId: z.string(),
  workspaceId: z.string(),
  email: z.string(),
  tokenHash: z.string(),
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().optional(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;
