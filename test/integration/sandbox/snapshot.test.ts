import os from 'node:os';
import { readOutcome } from '../../../shared/sandbox/bjson';
import { QuickJsEngine, snapshotKey } from '../../../shared/sandbox/engine';
import { runTransformation, SandboxError, shutdownSandbox } from '../../../shared/sandbox';
import type { SandboxLibrary } from '../../../shared/sandbox';
import { DEFAULT_LIMITS } from '../../../shared/sandbox/limits';
import type { SandboxLimits } from '../../../shared/sandbox/limits';
import { json, startDestinationServer } from '../../support/destination-server';
import { call, events, fromSnapshot, helpers, job, MiB, ordinary, snapshotting } from '../../support/snapshot-calls';
import type { Call, Job } from '../../support/snapshot-calls';

// Code that loaded twice runs from a memory snapshot taken after the module was loaded. These tests
// hold that path to the same results as the ordinary one, and to a pristine state every time.

afterAll(() => shutdownSandbox());

describe('the snapshot path gives the results of the ordinary path', () => {
  const cases: Array<[string, Job]> = [
    [
      'transformEvent with library helpers, drops, arrays, contract and event errors',
      {
        code: `
          import { normalizeEmail, slugify } from 'helpers';
          const table = Array.from({ length: 2000 }, (_, i) => 'k' + i * 7);
          export function transformEvent(event, metadata) {
            if (event.type === 'page' && event.n === 3) throw new TypeError('bad page ' + event.messageId);
            if (event.type === 'identify') return { ...event, traits: { email: normalizeEmail(event.traits.email) }, meta: metadata(event) };
            if (event.n === 99) return null;
            return [{ ...event, slug: slugify(event.event), k: table[event.n] }, { id: event.messageId, copy: true }];
          }`,
      },
    ],
    [
      'transformBatch',
      {
        code: `
          import { slugify } from 'helpers';
          export function transformBatch(events, metadata) { return events.map((e) => ({ id: e.messageId, s: slugify(e.type), m: metadata(e) })).reverse(); }`,
      },
    ],
    [
      'async transformEvent with a dynamic import made while handling the event',
      {
        code: `
          export async function transformEvent(event) {
            const lib = await import('helpers');
            await null;
            return { id: event.messageId, slug: lib.slugify(event.type + ' x') };
          }`,
      },
    ],
    [
      'test mode, with logs from the module top level and from the events',
      {
        testMode: true,
        code: `
          log('module loaded', { at: 'top' });
          export function transformEvent(event) { log('event', event.messageId); return { id: event.messageId }; }`,
      },
    ],
    [
      'a result large enough to travel in binary form',
      {
        code: `
          const filler = 'x'.repeat(200);
          export function transformEvent(event) { return { id: event.messageId, rows: Array.from({ length: 40 }, (_, i) => ({ i, filler })) }; }`,
      },
    ],
    ['code that exports no entry point', { code: `export const nothing = 1;` }],
    [
      'code with top-level await',
      {
        code: `
          const value = await Promise.resolve(41).then((v) => v + 1);
          export function transformEvent(event) { return { id: event.messageId, value }; }`,
      },
    ],
  ];

  it.each(cases)('%s', async (_name, spec) => {
    const reference = await call(await ordinary(), spec);
    expect(reference.outcome.ok).toBe(true);
    const engine = await snapshotting();
    const cached = await fromSnapshot(engine, spec);
    expect(cached.value).toEqual(reference.value);
    // And the same again from the restored state.
    const again = await call(engine, spec);
    expect(again.cached).toBe(true);
    expect(again.value).toEqual(reference.value);
  });

  it('input sent as JSON text gives the same results as binary input', async () => {
    const spec: Job = { code: `export function transformEvent(e) { return { id: e.messageId, n: e.n * 2 }; }` };
    const engine = await snapshotting();
    const binary = await fromSnapshot(engine, spec);
    const text = await engine.run({ ...job(spec), input: JSON.stringify(events) });
    expect(engine.lastRunFromSnapshot).toBe(true);
    await engine.tidy();
    expect(text.ok && readOutcome(text.output)).toEqual(binary.value);
  });

  it('failures of the whole invocation read the same', async () => {
    const spec: Job = {
      code: `export function transformBatch(events) { if (events.length > 1) throw new RangeError('too many'); return events; }`,
    };
    const reference = await (await ordinary()).run(job(spec));
    const engine = await snapshotting();
    await fromSnapshot(engine, spec, [events[0]]);
    const failed = await engine.run(job(spec));
    expect(engine.lastRunFromSnapshot).toBe(true);
    await engine.tidy();
    expect(failed).toEqual(reference);
  });

  it('code that fails to load is never snapshotted', async () => {
    const engine = await snapshotting();
    for (let i = 0; i < 3; i++) {
      const { outcome, cached } = await call(engine, { code: `export function transformEvent(e) { return e; ` });
      expect(cached).toBe(false);
      expect(outcome).toMatchObject({ ok: false, kind: 'compile' });
    }
    expect(engine.snapshotCount).toBe(0);
  });

  it('code that loads slowly is snapshotted with the default threshold', async () => {
    const engine = new QuickJsEngine();
    await engine.tidy();
    const big = Array.from({ length: 3000 }, (_, i) => `export function h${i}(x) { return [x, ${i}, 'h${i}'.repeat(2)]; }`).join('\n');
    const spec: Job = {
      code: `import { h7 } from 'big';\nexport function transformEvent(e) { return { id: e.messageId, h: h7(e.n) }; }`,
      libraries: [{ importName: 'big', name: 'big', code: big }],
    };
    const results: Call[] = [];
    for (let i = 0; i < 4; i++) results.push(await call(engine, spec));
    expect(results.map((r) => r.cached)).toEqual([false, false, true, true]);
    expect(new Set(results.map((r) => JSON.stringify(r.value))).size).toBe(1);
  });
});

describe('every invocation on the snapshot path starts pristine', () => {
  const tamper: Job = {
    code: `
      import { state, config, normalizeEmail } from 'helpers';
      let counter = 0;
      const topLevel = { created: 0 };
      export function transformEvent(event) {
        counter++;
        topLevel.created++;
        normalizeEmail('X@Y.z');
        state.seen.push(event.messageId);
        const seen = {
          counter, created: topLevel.created, calls: state.calls, seen: state.seen.length, mode: config.mode,
          global: typeof globalThis.leaked, proto: ({}).polluted, arrayProto: [].tampered, json: JSON.stringify({ a: 1 }),
          fetch: typeof fetch, log: typeof log, math: Math.max(1, 2),
        };
        globalThis.leaked = event.messageId;
        Object.prototype.polluted = 'yes';
        Array.prototype.tampered = 'yes';
        JSON.stringify = () => 'hijacked';
        Math.max = () => -1;
        config.mode = 'tampered';
        delete globalThis.fetch;
        globalThis.log = null;
        return seen;
      }`,
  };
  const pristine = {
    counter: 1,
    created: 1,
    calls: 1,
    seen: 1,
    mode: 'default',
    global: 'undefined',
    json: '{"a":1}',
    fetch: 'function',
    log: 'function',
    math: 2,
  };

  it.each([
    ['snapshotting any code', snapshotting],
    ['the default settings', async () => new QuickJsEngine()],
  ])('globals, prototypes, library exports and module-level state do not carry over (%s)', async (_name, make) => {
    const engine = await make();
    await engine.tidy();
    const one = [events[0]];
    const first = await call(engine, tamper, one);
    expect((first.value as { r: unknown[] }).r).toEqual([[0, pristine]]);
    await call(engine, tamper, one);
    for (let i = 0; i < 5; i++) {
      const next = await call(engine, tamper, one);
      expect(next.cached).toBe(true);
      expect((next.value as { r: unknown[] }).r).toEqual([[0, pristine]]);
    }
  });

  it('a host function the previous invocation let go of still works', async () => {
    const server = await startDestinationServer();
    server.on('/', json(200, { ok: 1 }));
    try {
      const base = server.url;
      const spec: Job = {
        allowlist: '127.0.0.1',
        // Deleting the last reference frees fetch at once (reference counting) and releases its host id.
        code: `export async function transformEvent(e) { const r = await fetch(e.base); delete globalThis.fetch; delete globalThis.fetchV2; return { r }; }`,
      };
      const engine = await snapshotting();
      const input = [{ message: { messageId: 'f', base }, metadata: {} }];
      await fromSnapshot(engine, spec, input);
      for (let i = 0; i < 3; i++) {
        const next = await call(engine, spec, input);
        expect(next.cached).toBe(true);
        expect((next.value as { r: unknown[] }).r).toEqual([[0, { r: { ok: 1 } }]]);
      }
      expect(server.received).toHaveLength(6);
    } finally {
      await server.close();
    }
  });

  it('Math.random differs between invocations; top-level values are those of the capture', async () => {
    const spec: Job = {
      code: `const atLoad = Math.random(); export function transformEvent() { return { atLoad, now: Math.random() }; }`,
    };
    const engine = await snapshotting();
    const runs: Array<{ atLoad: number; now: number }> = [];
    await fromSnapshot(engine, spec, [events[0]]);
    for (let i = 0; i < 4; i++) {
      const next = await call(engine, spec, [events[0]]);
      expect(next.cached).toBe(true);
      runs.push((next.value as { r: [[number, { atLoad: number; now: number }]] }).r[0][1]);
    }
    expect(new Set(runs.map((r) => r.atLoad)).size).toBe(1);
    expect(new Set(runs.map((r) => r.now)).size).toBe(runs.length);
  });

  it('a module that calls fetch while loading is never snapshotted', async () => {
    const server = await startDestinationServer();
    server.on('/', json(200, { v: 1 }));
    try {
      const base = server.url;
      const spec: Job = {
        allowlist: '127.0.0.1',
        code: `const loaded = await fetch(${JSON.stringify(base)}); export function transformEvent() { return { loaded }; }`,
      };
      const engine = await snapshotting();
      for (let i = 0; i < 3; i++) {
        const { cached, value } = await call(engine, spec);
        expect(cached).toBe(false);
        expect((value as { r: unknown[] }).r[0]).toEqual([0, { loaded: { v: 1 } }]);
      }
      expect(engine.snapshotCount).toBe(0);
      expect(server.received).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});

describe('limits hold on the snapshot path', () => {
  const code = `
    let counter = 0;
    function deep(n) { return deep(n + 1) + 1; }
    export function transformEvent(event) {
      counter++;
      if (event.spin) while (true) {}
      if (event.bomb) { const a = []; for (;;) a.push(new Array(1e5).fill(1.5)); }
      if (event.deep) deep(0);
      if (event.big) return { s: 'x'.repeat(4096) };
      return { id: event.messageId, counter };
    }`;
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, deadlineMs: 300, memoryBytes: 48 * MiB, outputBytes: 2048 };
  const plain = [{ message: { messageId: 'ok' }, metadata: {} }];
  const healthy = [[0, { id: 'ok', counter: 1 }]];

  it.each([
    ['the deadline', { spin: true }, 'timeout', false],
    ['the memory cap', { bomb: true }, 'memory', false],
    ['the stack limit', { deep: true }, 'memory', false],
    ['the output limit', { big: true }, 'output', true],
  ])('%s: the invocation fails with its kind and the next one is healthy', async (_name, flags, kind, kept) => {
    const engine = await snapshotting();
    const spec: Job = { code, limits };
    await fromSnapshot(engine, spec, plain);
    const started = performance.now();
    const hit = await call(engine, spec, [{ message: { messageId: 'x', ...flags }, metadata: {} }]);
    expect(hit.cached).toBe(true);
    expect(hit.outcome).toMatchObject({ ok: false, kind });
    if (kind === 'timeout') expect(performance.now() - started).toBeLessThan(limits.deadlineMs + 50);
    // A limit that can leave QuickJS inconsistent drops the snapshot; an output overflow does not.
    expect(engine.snapshotCount).toBe(kept ? 1 : 0);
    const next = await call(engine, spec, plain);
    expect(next.cached).toBe(kept);
    expect((next.value as { r: unknown[] }).r).toEqual(healthy);
  });

  it('the memory cap of the key is the cap of the snapshot instance', async () => {
    const engine = await snapshotting();
    const spec: Job = { code, limits };
    await fromSnapshot(engine, spec, plain);
    const internals = engine as unknown as { snapshots: Map<string, { sandbox: { instance: { maxBytes: number } } }> };
    expect([...internals.snapshots.values()].map((s) => s.sandbox.instance.maxBytes)).toEqual([48 * MiB]);
  });
});

describe('a snapshot serves only its own key', () => {
  const base: Job = {
    code: `import { slugify } from 'helpers'; export function transformEvent(e) { return { id: e.messageId, s: slugify('A B'), v: 'base' }; }`,
  };
  const variants: Array<[string, Partial<Job>, string]> = [
    ['one character of code', { code: base.code.replace("v: 'base'", "v: 'bass'") }, 'bass'],
    ['the library code', { libraries: [{ ...helpers, code: helpers.code.replace("'-'", "'_'") }] }, 'base'],
    ['the library name', { libraries: [{ ...helpers, name: 'other' }] }, 'base'],
    ['the transformation name', { name: 'another name' }, 'base'],
    ['the deadline', { limits: { ...DEFAULT_LIMITS, deadlineMs: 3999 } }, 'base'],
    ['the memory cap', { limits: { ...DEFAULT_LIMITS, memoryBytes: 64 * MiB } }, 'base'],
    ['the stack limit', { limits: { ...DEFAULT_LIMITS, stackBytes: 512 * 1024 } }, 'base'],
    ['the output limit', { limits: { ...DEFAULT_LIMITS, outputBytes: 1024 * 1024 } }, 'base'],
    ['the test mode', { testMode: true }, 'base'],
  ];

  it.each(variants)('changing %s misses the snapshot', async (_name, change, v) => {
    const engine = await snapshotting();
    await fromSnapshot(engine, base, [events[0]]);
    const other = await call(engine, { ...base, ...change }, [events[0]]);
    expect(other.cached).toBe(false);
    const row = (other.value as { r: [[number, { v: string; s: string }]] }).r[0][1];
    expect(row.v).toBe(v);
    expect(row.s).toBe(change.libraries?.[0]?.code.includes("'_'") ? 'a_b' : 'a-b');
  });

  it('keys differ for every part and never confuse where one part ends', () => {
    const spec = { code: 'ab', name: 'c', libraries: [helpers], limits: DEFAULT_LIMITS, testMode: false };
    const keys = [
      snapshotKey(spec, true),
      snapshotKey(spec, false),
      snapshotKey({ ...spec, code: 'a', name: 'bc' }, true),
      snapshotKey({ ...spec, code: 'ab\ud800' }, true),
      snapshotKey({ ...spec, code: 'ab\ufffd' }, true),
      snapshotKey({ ...spec, libraries: [] }, true),
      snapshotKey({ ...spec, libraries: [helpers, helpers] }, true),
      snapshotKey({ ...spec, libraries: [{ ...helpers, importName: 'helper' }] }, true),
      snapshotKey({ ...spec, testMode: true }, true),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(snapshotKey({ ...spec, libraries: [{ ...helpers }] }, true)).toBe(keys[0]);
  });

  it('at most maxSnapshots are kept, least recently used out first', async () => {
    const engine = await snapshotting(2);
    const specs = [0, 1, 2].map((i): Job => ({ code: `export function transformEvent(e) { return { id: e.messageId, i: ${i} }; }` }));
    for (const spec of specs) await fromSnapshot(engine, spec, [events[0]]);
    expect(engine.snapshotCount).toBe(2);
    expect((await call(engine, specs[0]!, [events[0]])).cached).toBe(false);
    const latest = await call(engine, specs[2]!, [events[0]]);
    expect(latest.cached).toBe(true);
    expect((latest.value as { r: [[number, { i: number }]] }).r[0][1].i).toBe(2);
  });
});

describe('through the worker pool, with a 70 KB library', () => {
  const parts: string[] = [];
  for (let i = 0, size = 0; size < 70 * 1024; i++) {
    const fn = `export function helper${i}(input) { return typeof input === 'string' ? input.trim().toLowerCase().split(/\\s+/).join('_${i}') : { k: ${i}, input }; }\n`;
    parts.push(fn);
    size += fn.length;
  }
  const heavy: SandboxLibrary = { importName: 'heavy', name: 'heavy', code: `export const shared = { n: 0 };\n${parts.join('')}` };
  const code = `
    import { helper3, shared } from 'heavy';
    let counter = 0;
    export function transformEvent(event) {
      counter++; shared.n++;
      if (event.spin) { const a = new Array(1e6).fill(0); while (true) a.indexOf(1); }
      const out = { id: event.messageId, h: helper3(' A b '), counter, shared: shared.n, leaked: typeof globalThis.leaked };
      globalThis.leaked = 1;
      return out;
    }`;
  const invoke = (message: Record<string, unknown>) =>
    runTransformation({ code, libraries: [heavy], events: [{ message, metadata: {} }], limits: { deadlineMs: 500 } });
  const expected = { id: 'p', h: 'a_3b', counter: 1, shared: 1, leaked: 'undefined' };

  it('every invocation is pristine, and a watchdog stop leaves the pool healthy', async () => {
    // Enough calls for every worker to have loaded the code twice and taken its snapshot.
    for (let i = 0; i < 6 * os.availableParallelism(); i++) {
      const result = await invoke({ messageId: 'p' });
      expect(result.transformedEvents).toEqual([{ transformedEvent: expected, metadata: {} }]);
    }
    const started = performance.now();
    const stopped = await invoke({ messageId: 's', spin: true }).catch((err: unknown) => err);
    expect(stopped).toBeInstanceOf(SandboxError);
    expect((stopped as SandboxError).kind).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(500 + 150);
    for (let i = 0; i < 4; i++) {
      const result = await invoke({ messageId: 'p' });
      expect(result.transformedEvents).toEqual([{ transformedEvent: expected, metadata: {} }]);
    }
  }, 60_000);
});
