/**
 * Key builders: the only place that knows how items are laid out in the single table. Every tenant item's
 * partition key begins with its workspace, so no query can cross workspaces. The only keys that do not are
 * credential lookups (token hash, source write key), which exist to find the workspace in the first place.
 */
const ws = (workspaceId: string) => `WS#${workspaceId}`;

export type CodeKind = 'transformation' | 'library';
const CODE_PREFIX: Record<CodeKind, string> = { transformation: 'TRANSFORMATION#', library: 'LIBRARY#' };

export const keys = {
  workspace: (workspaceId: string) => ({ pk: ws(workspaceId), sk: 'WORKSPACE' }),
  user: (workspaceId: string, email: string) => ({ pk: ws(workspaceId), sk: `USER#${email}` }),
  /** Token items are found by the hash of the presented token; listed per workspace via gsi1. */
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  tokensOfWorkspace: (workspaceId: string) => ({ gsi1pk: `${ws(workspaceId)}#TOKENS` }),

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
  /** Transformations and libraries: a head item (the working copy) in the workspace partition… */
  code: (kind: CodeKind, workspaceId: string, id: string) => ({ pk: ws(workspaceId), sk: `${CODE_PREFIX[kind]}${id}` }),
  codePrefix: (kind: CodeKind) => CODE_PREFIX[kind],
  /** …immutable revisions in a partition of their own, ordered by their time-sortable version id… */
  revision: (kind: CodeKind, workspaceId: string, id: string, versionId: string) => ({
    pk: `${ws(workspaceId)}#${CODE_PREFIX[kind]}${id}`,
    sk: `REV#${versionId}`,
  }),
  revisionPartition: (kind: CodeKind, workspaceId: string, id: string) => `${ws(workspaceId)}#${CODE_PREFIX[kind]}${id}`,
  revisionPrefix: 'REV#',
  /** …found by version id alone through gsi1… */
  versionLookup: (workspaceId: string, versionId: string) => ({ gsi1pk: `${ws(workspaceId)}#VERSIONS`, gsi1sk: versionId }),
  /** …and a guard that keeps transformation names and library import names unique in a workspace. */
  codeName: (kind: CodeKind, workspaceId: string, name: string) => ({ pk: ws(workspaceId), sk: `NAME#${CODE_PREFIX[kind]}${name}` }),
  workspacePartition: ws,
} as const;
