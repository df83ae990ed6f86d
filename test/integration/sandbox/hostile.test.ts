import os from 'node:os';
import { runTransformation, SandboxError, shutdownSandbox } from '../../../shared/sandbox';
import type { SandboxLimits } from '../../../shared/sandbox';

const DEADLINE_MS = 300;
const MiB = 1024 * 1024;

const identity = 'export function transformEvent(event) { return event; }';

function invoke(code: string, limits: Partial<SandboxLimits> = {}, testMode = false) {
  return runTransformation({
    code,
    libraries: [],
    events: [{ message: { messageId: 'h1', n: 1 }, metadata: { m: 1 } }],
    testMode,
    limits: { deadlineMs: DEADLINE_MS, ...limits },
  });
}

/** Runs the invocation, expects a SandboxError, and returns it with the wall time from the call. */
async function timedFailure(promise: () => Promise<unknown>): Promise<{ err: SandboxError; ms: number }> {
  const started = performance.now();
  try {
    await promise();
  } catch (err) {
    const ms = performance.now() - started;
    expect(err).toBeInstanceOf(SandboxError);
    return { err: err as SandboxError, ms };
  }
  throw new Error('expected the invocation to fail');
}

/** Deadline of the checks around a case: they prove the pool works, not how fast (a busy machine may take 300 ms). */
const CHECK_LIMITS = { deadlineMs: 10_000 };

/** Every worker of the pool exists and is idle, so timings measure the invocation, not a worker start. */
async function poolReady(): Promise<void> {
  await Promise.all(Array.from({ length: os.availableParallelism() }, () => invoke(identity, CHECK_LIMITS)));
}

async function expectHealthy(): Promise<void> {
  const result = await invoke(identity, CHECK_LIMITS);
  expect(result.transformedEvents).toEqual([{ transformedEvent: { messageId: 'h1', n: 1 }, metadata: { m: 1 } }]);
}

beforeAll(() => poolReady(), 60_000);
afterAll(() => shutdownSandbox());

describe('runaway CPU is stopped within deadline + 50 ms', () => {
  const cases: Array<[string, string]> = [
    ['an infinite loop', 'export function transformEvent() { while (true) {} }'],
    ['a loop that catches its own interruption', 'export function transformEvent() { for (;;) { try { while (true) {} } catch (e) {} } }'],
    ['a loop around a long native call', 'const a = new Array(1e6).fill(0);\nexport function transformEvent() { while (true) a.indexOf(1); }'],
    ['a catastrophic regular expression', 'export function transformEvent() { return { m: /(a+)+$/.test("a".repeat(40) + "b") }; }'],
    ['an endless chain of promise jobs', 'export async function transformEvent() { while (true) await null; }'],
    ['a busy loop while the module evaluates', 'while (true) {}\nexport function transformEvent(e) { return e; }'],
    ['a loop that throws and catches on every turn', 'export function transformEvent() { let s = "x"; while (true) { try { s = s + s; } catch (e) {} } }'],
  ];

  it.each(cases)('%s', async (_name, code) => {
    await poolReady();
    const { err, ms } = await timedFailure(() => invoke(code));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe(`execution deadline of ${DEADLINE_MS} ms exceeded`);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(ms).toBeLessThanOrEqual(DEADLINE_MS + 50);
    await expectHealthy();
  });
});

describe('memory bombs hit the hard memory cap', () => {
  const limits = { memoryBytes: 64 * MiB, deadlineMs: 5000 };
  const cases: Array<[string, string]> = [
    ['string growth', 'export function transformEvent() { const a = []; let s = "x".repeat(1 << 20); while (true) a.push(s + a.length); }'],
    ['string doubling that is read back', 'export function transformEvent() { let s = "x"; while (true) { s = s + s; s.charCodeAt(s.length - 1); } }'],
    ['arrays of arrays', 'export function transformEvent() { const a = []; while (true) a.push(new Array(1e5).fill(1.5)); }'],
    ['typed arrays', 'export function transformEvent() { const a = []; while (true) a.push(new Float64Array(1e6)); }'],
    ['one huge allocation', 'export function transformEvent() { return { b: new ArrayBuffer(1024 * 1024 * 1024).byteLength }; }'],
    [
      'a bomb that catches the out-of-memory error and retries',
      'export function transformEvent() { const a = []; while (true) { try { a.push(new Array(1e5).fill(1.5)); } catch (e) { a.length = a.length; } } }',
    ],
    [
      'a bomb that catches the error and frees memory before retrying',
      'export function transformEvent() { let a = []; let caught = 0; while (true) { try { a.push(new Float64Array(1e5)); } catch (e) { caught++; a = []; } } }',
    ],
  ];

  it.each(cases)('%s', async (_name, code) => {
    await poolReady();
    const { err, ms } = await timedFailure(() => invoke(code, limits));
    expect(err.kind).toBe('memory');
    expect(err.message).toBe('memory limit of 67108864 bytes (64 MiB) exceeded');
    expect(ms).toBeLessThan(limits.deadlineMs);
    await expectHealthy();
  });
});

describe('deep recursion hits the stack limit', () => {
  it.each([
    ['plain recursion', 'function f(n) { return f(n + 1) + 1; }\nexport function transformEvent() { return { v: f(0) }; }'],
    ['recursion through a native callback', 'function f() { return [1].map(f); }\nexport function transformEvent() { return { v: f() }; }'],
    [
      'stringifying a deeply nested value',
      'export function transformEvent() { let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; return { s: JSON.stringify(o).length }; }',
    ],
    ['parsing a deeply nested value', 'export function transformEvent() { return { v: JSON.parse("[".repeat(1e5) + "]".repeat(1e5)) }; }'],
  ])('%s', async (_name, code) => {
    const { err } = await timedFailure(() => invoke(code, { stackBytes: 256 * 1024, deadlineMs: 5000 }));
    expect(err.kind).toBe('memory');
    expect(err.message).toBe('stack size limit of 262144 bytes (256 KiB) exceeded (recursion too deep)');
    await expectHealthy();
  });

  it('recursion that the code catches itself is allowed to go on', async () => {
    const result = await invoke(
      'function f(n) { return f(n + 1); }\nexport function transformEvent() { try { f(0); } catch (e) { return { caught: e.message }; } }',
    );
    expect(result.transformedEvents[0]).toMatchObject({ transformedEvent: { caught: 'stack overflow' } });
  });

  it('moderate recursion stays within the default limit', async () => {
    const result = await invoke('function f(n) { return n === 0 ? 0 : 1 + f(n - 1); }\nexport function transformEvent() { return { v: f(2000) }; }');
    expect(result.transformedEvents[0]).toMatchObject({ transformedEvent: { v: 2000 } });
  });
});

describe('output is capped', () => {
  const limits = { outputBytes: 1 * MiB, deadlineMs: 5000 };

  it('a huge return value is refused', async () => {
    const { err } = await timedFailure(() => invoke('export function transformEvent() { return { big: "x".repeat(2 * 1024 * 1024) }; }', limits));
    expect(err.kind).toBe('output');
    expect(err.message).toBe('output size limit of 1048576 bytes (1 MiB) exceeded');
    await expectHealthy();
  });

  it('a huge fan-out is refused', async () => {
    const { err } = await timedFailure(() =>
      invoke('export function transformEvent() { return Array.from({ length: 20000 }, (_, i) => ({ i, pad: "y".repeat(100) })); }', limits),
    );
    expect(err.kind).toBe('output');
  });

  it('multi-byte text is measured in UTF-8 bytes', async () => {
    // 400 000 three-byte characters: under the limit in UTF-16 units, over it in bytes.
    const { err } = await timedFailure(() => invoke('export function transformEvent() { return { t: "€".repeat(400000) }; }', limits));
    expect(err.kind).toBe('output');
  });

  it('endless logging in test mode is refused', async () => {
    const { err } = await timedFailure(() =>
      invoke('export function transformEvent(e) { for (let i = 0; i < 1e5; i++) log("line", i, "z".repeat(100)); return e; }', limits, true),
    );
    expect(err.kind).toBe('output');
  });
});

describe('isolation between invocations', () => {
  it('prototype tampering and globals of one invocation are not seen by the next ones', async () => {
    const tamper = `
      Object.prototype.polluted = 'yes';
      Array.prototype.push = function () { return 0; };
      JSON.parse = () => ({});
      globalThis.leaked = 'secret';
      Object.defineProperty(globalThis, 'fetch', { value: () => 'hijacked' });
      export function transformEvent(event) { return { ...event, tampered: true }; }`;
    const probe = `
      export function transformEvent(event) {
        const a = []; a.push(1);
        return { polluted: ({}).polluted ?? null, push: a.length, leaked: typeof leaked, parse: JSON.parse('{"ok":1}').ok, fetch: String(fetch).includes('hijacked') };
      }`;
    const tampered = await invoke(tamper);
    expect(tampered.transformedEvents[0]).toMatchObject({ transformedEvent: { tampered: true } });
    // Enough probes to land on every worker and on sandboxes created after the tampering.
    const probes = await Promise.all(Array.from({ length: 2 * os.availableParallelism() + 2 }, () => invoke(probe)));
    for (const result of probes) {
      expect(result.transformedEvents[0]).toEqual({
        transformedEvent: { polluted: null, push: 1, leaked: 'undefined', parse: 1, fetch: false },
        metadata: { m: 1 },
      });
    }
  });

  it('a library mutated by one invocation is pristine in the next', async () => {
    const lib = { importName: 'state', name: 'state', code: 'export const counter = { n: 0 };' };
    const code = 'import { counter } from "state";\nexport function transformEvent() { counter.n++; return { n: counter.n }; }';
    for (let i = 0; i < 4; i++) {
      const result = await runTransformation({ code, libraries: [lib], events: [{ message: { messageId: 'a' } }] });
      expect(result.transformedEvents[0]).toMatchObject({ transformedEvent: { n: 1 } });
    }
  });

  it('user code cannot reach the host through constructors or the global object', async () => {
    const result = await invoke(`
      export function transformEvent() {
        const g = Function('return this')();
        return {
          sameGlobal: g === globalThis,
          viaConstructor: (() => { try { return typeof [].constructor.constructor('return typeof process')(); } catch (e) { return 'threw'; } })(),
          importMeta: typeof import.meta,
          dynamicImport: typeof Promise,
          hostNames: Object.getOwnPropertyNames(g).filter((k) => /^(process|require|module|exports|Buffer|global|setImmediate|queueMicrotask|WebAssembly|setTimeout|fetchSync)$/.test(k)),
        };
      }`);
    expect(result.transformedEvents[0]).toMatchObject({
      transformedEvent: { sameGlobal: true, viaConstructor: 'string', hostNames: [] },
    });
    const [entry] = result.transformedEvents;
    const probeResult = entry && 'transformedEvent' in entry ? entry.transformedEvent : {};
    expect(probeResult.viaConstructor).toBe('string');
    const check = await invoke('export function transformEvent() { return { p: [].constructor.constructor("return typeof process")() }; }');
    expect(check.transformedEvents[0]).toMatchObject({ transformedEvent: { p: 'undefined' } });
  });

  it('a dynamic import of a host module fails', async () => {
    const result = await invoke(
      'export async function transformEvent() { try { await import("fs"); return { loaded: true }; } catch (e) { return { loaded: false, why: String(e.message || e) }; } }',
    );
    expect(result.transformedEvents[0]).toMatchObject({ transformedEvent: { loaded: false } });
  });
});
