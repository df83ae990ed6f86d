import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { startLocalRuntime, type LocalRuntime, type RuntimeOptions } from '../../infra/local/runtime';
import { createWorkspace, type WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { createTableClient, type TableClient } from '../../shared/persistence/table-client';
import { WorkspaceRepository } from '../../shared/persistence/workspace-repository';
import { testStoreEndpoint } from './worker-store';

export const ADMIN = { user: 'weir-admin', password: 'admin-secret-for-tests' };

export interface TestRuntime extends LocalRuntime {
  store: TableClient;
  workspaces: WorkspaceRepository;
  /** A fresh workspace with its user and token. */
  newWorkspace(name?: string): Promise<WorkspaceCredentials>;
}

/**
 * The local runtime in this test process, on free ports, against the worker's DynamoDB Local (worker-store.ts)
 * with a table of its own, so test files never see each other's data.
 */
export async function startTestRuntime(options: Partial<RuntimeOptions> = {}): Promise<TestRuntime> {
  const dynamoEndpoint = await testStoreEndpoint();
  const runtime = await startLocalRuntime({
    controlPort: 0,
    dataPort: 0,
    dynamoEndpoint,
    tableName: `weir-test-${randomUUID()}`,
    admin: ADMIN,
    credentialsKey: randomBytes(32).toString('base64'),
    ...options,
  });
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint });
  const store = createTableClient({ client, table: runtime.tableName });
  const workspaces = new WorkspaceRepository(store);
  return {
    ...runtime,
    store,
    workspaces,
    newWorkspace: (name = 'test workspace') => createWorkspace(workspaces, { name, email: `user-${randomUUID().slice(0, 8)}@example.com` }),
    stop: async () => {
      client.destroy();
      await runtime.stop();
    },
  };
}

/** startTestRuntime for a file's tests: started before them, stopped after the file; there once they run. */
export function fileRuntime(options?: Partial<RuntimeOptions>): TestRuntime {
  const rt = {} as TestRuntime;
  beforeAll(async () => void Object.assign(rt, await startTestRuntime(options)));
  afterAll(async () => rt.stop());
  return rt;
}

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const bearer = (token: string) => `Bearer ${token}`;

export interface Answer<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A small HTTP client: JSON in, JSON (or text) out. */
export async function call<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any
  base: string,
  method: string,
  path: string,
  options: { auth?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.Authorization = options.auth;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers stay text
  }
  return { status: response.status, body: parsed as T, text, headers: response.headers };
}

/**
 * A function's handler, loaded from its manifest entry the way the local gateway loads it. Load it after the
 * runtime has started: like a Lambda, the module reads its configuration from the environment.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function loadHandler<T = (...args: any[]) => Promise<any>>(entry: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(__dirname, '../..', entry)) as { handler: T }).handler;
}
