/**
 * Key builders: the only place that knows how items are laid out in the single table. Every tenant item's
 * partition key begins with its workspace, so no query can cross workspaces. The only keys that do not are
 * credential lookups (token hash, source write key), which exist to find the workspace in the first place.
 */
const ws = (workspaceId: string) => `WS#${workspaceId}`;

export const keys = {
  workspace: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'WORKSPACE' }),
  user: (workspaceId: string, email: string) => ({ pk: ws(workspaceId), sk: `USER#${email}` }),
  userPrefix: 'USER#',
  /** Token items are found by the hash of the presented token; listed per workspace via gsi1. */
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  tokensOfWorkspace: (workspaceId: string) => ({ gsi1pk: `${ws(workspaceId)}#TOKENS` }),
  /** Workspaces are listed (admin CLI) through gsi1 as well. */
  allWorkspaces: { gsi1pk: 'WORKSPACES' },

  source: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `SOURCE#${id}` }),
  sourcePrefix: 'SOURCE#',
  writeKey: (writeKey: string) => ({ pk: `WRITEKEY#${writeKey}`, sk: 'WRITEKEY' }),
  destination: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `DESTINATION#${id}` }),
  destinationPrefix: 'DESTINATION#',
  connection: (workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `CONNECTION#${id}` }),
  connectionPrefix: 'CONNECTION#',
  /** Guards "one connection per source/destination pair" with a conditional put. */
  connectionPair: (workspaceId: string, sourceId: string, destinationId: string) => ({
    pk: ws(workspaceId),
    sk: `CONNPAIR#${sourceId}#${destinationId}`,
  }),
  workspacePartition: ws,
} as const;
