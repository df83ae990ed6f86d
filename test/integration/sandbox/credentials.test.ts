import { encodePlainJson, readOutcome } from '../../../shared/sandbox/bjson';
import { QuickJsEngine } from '../../../shared/sandbox/engine';
import { runTransformation, shutdownSandbox } from '../../../shared/sandbox';
import { DEFAULT_LIMITS } from '../../../shared/sandbox/limits';
import type { EngineRunJob } from '../../../shared/sandbox/protocol';

/** getCredential(key) inside the sandbox: the reference's semantics, per invocation, also from snapshots. */
afterAll(async () => shutdownSandbox());

const READER = `export function transformEvent(event) {
  return { key: event.key === 'none' ? getCredential() : event.key === 'null' ? getCredential(null) : getCredential(event.key) };
}`;

const run = (events: Record<string, unknown>[], credentials?: Record<string, string>, code = READER) =>
  runTransformation({ code, libraries: [], events: events.map((message) => ({ message })), credentials });

describe('getCredential', () => {
  it("answers a key's value, and undefined for an unknown key or a key that is not a string", async () => {
    const result = await run([{ key: 'API_KEY' }, { key: 'OTHER' }, { key: 42 }, { key: {} }], { API_KEY: 'v-123' });
    expect(result.transformedEvents.map((e) => ('transformedEvent' in e ? e.transformedEvent : e.error))).toEqual([{ key: 'v-123' }, {}, {}, {}]);
  });

  it('throws TypeError "Key should be valid and defined" without a key or with null, as that event\'s error', async () => {
    const result = await run([{ key: 'none' }, { key: 'null' }, { key: 'API_KEY' }], { API_KEY: 'v' });
    expect(result.transformedEvents.map((e) => ('error' in e ? e.error.split('\n')[0] : e.transformedEvent))).toEqual([
      'TypeError: Key should be valid and defined',
      'TypeError: Key should be valid and defined',
      { key: 'v' },
    ]);
  });

  it("answers undefined when the invocation has no credentials, and never another invocation's", async () => {
    await run([{ key: 'API_KEY' }], { API_KEY: 'first' });
    const bare = await run([{ key: 'API_KEY' }]);
    expect(bare.transformedEvents).toEqual([expect.objectContaining({ transformedEvent: {} })]);
  });

  it("reads each invocation's own values when the code runs from a snapshot, and at module load", async () => {
    const engine = new QuickJsEngine({ snapshotMinLoadMs: 0 });
    await engine.tidy();
    const job = (code: string, credentials: Record<string, string>): EngineRunJob => ({
      code,
      name: 't',
      libraries: [],
      input: encodePlainJson([{ message: { key: 'K' } }])!,
      testMode: false,
      limits: DEFAULT_LIMITS,
      allowlist: '',
      credentials,
    });
    /** Runs `code` once with each of `values` as the credential K: what each run returned, and whether it ran from a snapshot. */
    const runEach = async (code: string, values: string[]) => {
      const returned: unknown[] = [];
      const fromSnapshot: boolean[] = [];
      for (const value of values) {
        const outcome = await engine.run(job(code, { K: value }));
        fromSnapshot.push(engine.lastRunFromSnapshot);
        await engine.tidy();
        returned.push(outcome.ok && (readOutcome(outcome.output) as { r: unknown[][] }).r[0]![1]);
      }
      return { returned, fromSnapshot };
    };
    expect(await runEach(READER, ['a', 'b', 'c'])).toEqual({ returned: [{ key: 'a' }, { key: 'b' }, { key: 'c' }], fromSnapshot: [false, false, true] });

    const atLoad = `const k = getCredential('K');\nexport function transformEvent(e) { return { k }; }`;
    expect(await runEach(atLoad, ['x', 'y', 'z'])).toEqual({ returned: [{ k: 'x' }, { k: 'y' }, { k: 'z' }], fromSnapshot: [false, false, false] });
  });
});
