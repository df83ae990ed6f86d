import { encodePlainJson, readOutcome } from '../../shared/sandbox/bjson';
import { QuickJsEngine } from '../../shared/sandbox/engine';
import type { SandboxLibrary } from '../../shared/sandbox';
import { DEFAULT_LIMITS } from '../../shared/sandbox/limits';
import type { SandboxLimits } from '../../shared/sandbox/limits';
import type { EngineOutcome, EngineRunJob } from '../../shared/sandbox/protocol';

// Engine-level calls for the snapshot tests: one invocation and the tidy-up after it, with the
// events, library and settings those tests share.

export const MiB = 1024 * 1024;

export const events = [
  { message: { messageId: 'm1', type: 'track', event: 'Order Completed', n: 1 }, metadata: { sourceId: 's1' } },
  { message: { messageId: 'm2', type: 'identify', traits: { email: ' A.B+x@Example.com ' }, n: 2 }, metadata: { sourceId: 's2' } },
  { message: { messageId: 'm3', type: 'page', n: 3 }, metadata: { sourceId: 's3' } },
];

export const helpers: SandboxLibrary = {
  importName: 'helpers',
  name: 'helpers',
  code: `
    export const state = { calls: 0, seen: [] };
    export const config = { mode: 'default' };
    export function normalizeEmail(email) { state.calls++; return String(email).trim().toLowerCase().replace(/\\+[^@]*@/, '@'); }
    export function slugify(text) { return String(text).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''); }
  `,
};

export interface Call {
  outcome: EngineOutcome;
  value: unknown;
  cached: boolean;
}

export type Job = Partial<EngineRunJob> & { code: string; limits?: SandboxLimits };

export function job(spec: Job, input: unknown = events): EngineRunJob {
  return {
    name: 'snapshot test',
    libraries: [helpers],
    input: encodePlainJson(input) ?? JSON.stringify(input),
    testMode: false,
    limits: DEFAULT_LIMITS,
    allowlist: '',
    ...spec,
  };
}

/** One invocation followed by the tidy-up a worker does after replying. */
export async function call(engine: QuickJsEngine, spec: Job, input?: unknown): Promise<Call> {
  const outcome = await engine.run(job(spec, input));
  const cached = engine.lastRunFromSnapshot;
  await engine.tidy(spec.limits?.memoryBytes ?? DEFAULT_LIMITS.memoryBytes);
  return { outcome, cached, value: outcome.ok ? readOutcome(outcome.output) : undefined };
}

/** An engine that snapshots any code that loaded twice, however fast it loaded. */
export async function snapshotting(maxSnapshots?: number): Promise<QuickJsEngine> {
  const engine = new QuickJsEngine({ snapshotMinLoadMs: 0, maxSnapshots });
  await engine.tidy();
  return engine;
}

export async function ordinary(): Promise<QuickJsEngine> {
  const engine = new QuickJsEngine({ maxSnapshots: 0 });
  await engine.tidy();
  return engine;
}

/** Two ordinary loads, after which a snapshot is taken; returns the first invocation from it. */
export async function fromSnapshot(engine: QuickJsEngine, spec: Job, input?: unknown): Promise<Call> {
  const first = await call(engine, spec, input);
  const second = await call(engine, spec, input);
  expect([first.cached, second.cached]).toEqual([false, false]);
  const third = await call(engine, spec, input);
  expect(third.cached).toBe(true);
  return third;
}
