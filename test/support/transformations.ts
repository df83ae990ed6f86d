import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { shutdownSandbox } from '../../shared/sandbox';
import { basic, bearer, call, startTestRuntime, type TestRuntime } from './runtime';

/** The setting of the transformation suites: a runtime, and a client as the GitHub Action or rudder-cli calls. */
export function transformationSuite() {
  const state = {} as { rt: TestRuntime };
  beforeAll(async () => (state.rt = await startTestRuntime()));
  afterAll(async () => {
    await state.rt.stop();
    await shutdownSandbox();
  });

  /** The GitHub Action authenticates with Basic email:token; rudder-cli with Bearer. Both are used. */
  const client = (ws: WorkspaceCredentials, scheme: 'basic' | 'bearer' = 'basic') => {
    const auth = scheme === 'basic' ? basic(ws.email, ws.token) : bearer(ws.token);
    return {
      get: (path: string) => call(state.rt.controlUrl, 'GET', path, { auth }),
      post: (path: string, body?: unknown) => call(state.rt.controlUrl, 'POST', path, { auth, body: body ?? {} }),
      del: (path: string) => call(state.rt.controlUrl, 'DELETE', path, { auth }),
    };
  };
  return { state, client };
}

export const IDENTITY = 'export function transformEvent(event, metadata) {\n  return event;\n}';
export const TAGGER = `import { tag } from "tagLib";
export function transformEvent(event) {
  return { ...event, tagged: tag(event.event ?? event.type) };
}`;
export const THROWS = 'export function transformEvent(event) {\n  throw new Error("Manual Error");\n}';
