import { checkLibrary, runTransformation, SandboxError, shutdownSandbox } from '../../../shared/sandbox';
import type { SandboxEvent, SandboxLibrary, SandboxRequest } from '../../../shared/sandbox';

const events: SandboxEvent[] = [
  { message: { messageId: 'm1', event: 'Order Completed', n: 1 }, metadata: { sourceId: 's1', messageId: 'm1' } },
  { message: { messageId: 'm2', event: 'Product Viewed', n: 2 }, metadata: { sourceId: 's2', messageId: 'm2' } },
  { message: { messageId: 'm3', event: 'Signed Up', n: 3 }, metadata: { sourceId: 's3', messageId: 'm3' } },
];

function run(code: string, extra: Partial<SandboxRequest> = {}) {
  return runTransformation({ code, libraries: [], events, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<SandboxError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(SandboxError);
    return err as SandboxError;
  }
  throw new Error('expected the invocation to fail');
}

afterAll(() => shutdownSandbox());

describe('transformEvent', () => {
  it('an identity transformation returns every event with its own metadata, in input order', async () => {
    const result = await run('export function transformEvent(event) { return event; }');
    expect(result.transformedEvents).toEqual(events.map((e) => ({ transformedEvent: e.message, metadata: e.metadata })));
    expect(result.logs).toEqual([]);
  });

  it('an async transformEvent is awaited and order still follows the input', async () => {
    const result = await run(`
      export async function transformEvent(event) {
        await null;
        if (event.n === 1) { for (let i = 0; i < 5; i++) await Promise.resolve(); }
        return { id: event.messageId };
      }`);
    expect(result.transformedEvents.map((e) => 'transformedEvent' in e && e.transformedEvent.id)).toEqual(['m1', 'm2', 'm3']);
  });

  it('returning null or undefined drops the event', async () => {
    const result = await run(`
      export function transformEvent(event) {
        if (event.n === 1) return null;
        if (event.n === 2) return undefined;
        return event;
      }`);
    expect(result.transformedEvents).toEqual([{ transformedEvent: events[2]!.message, metadata: events[2]!.metadata }]);
  });

  it('an array of objects fans one event out to several outputs carrying its metadata', async () => {
    const result = await run(`
      export function transformEvent(event) {
        return event.n === 2 ? [{ part: 'a' }, { part: 'b' }] : null;
      }`);
    expect(result.transformedEvents).toEqual([
      { transformedEvent: { part: 'a' }, metadata: events[1]!.metadata },
      { transformedEvent: { part: 'b' }, metadata: events[1]!.metadata },
    ]);
  });

  it('an array holding a non-object yields exactly one error and none of its objects', async () => {
    const result = await run(`export function transformEvent(event) { return event.n === 1 ? [{ ok: 1 }, 1] : null; }`);
    expect(result.transformedEvents).toEqual([
      { error: 'returned event in events array from transformEvent(event) is not an object', metadata: events[0]!.metadata },
    ]);
  });

  it('a non-object return is an error for that event', async () => {
    const result = await run(`export function transformEvent(event) { return event.n === 1 ? 'text' : event.n === 2 ? 42 : new Date(); }`);
    expect(result.transformedEvents.map((e) => ('error' in e ? e.error : null))).toEqual([
      'returned event from transformEvent(event) is not an object',
      'returned event from transformEvent(event) is not an object',
      'returned event from transformEvent(event) is not an object',
    ]);
  });

  it('a transformation that throws fails only its own event, with the stack cut after transformEvent', async () => {
    const result = await run('export function transformEvent(event) {\n  if (event.n === 2) throw new Error("Manual Error");\n  return event;\n}');
    expect(result.transformedEvents).toHaveLength(3);
    expect(result.transformedEvents[0]).toEqual({ transformedEvent: events[0]!.message, metadata: events[0]!.metadata });
    expect(result.transformedEvents[1]).toEqual({
      error: 'Error: Manual Error\n    at transformEvent (base transformation:2:37)',
      metadata: events[1]!.metadata,
    });
    expect(result.transformedEvents[2]).toEqual({ transformedEvent: events[2]!.message, metadata: events[2]!.metadata });
  });

  it('a rejected promise fails only its own event', async () => {
    const result = await run(
      'export async function transformEvent(event) {\n  await null;\n  if (event.n === 3) throw new TypeError("late");\n  return event;\n}',
    );
    const last = result.transformedEvents[2]!;
    expect('error' in last && last.error.split('\n')[0]).toBe('TypeError: late');
    expect('error' in last && last.error).toMatch(/at transformEvent \(base transformation:3:\d+\)$/);
    expect(result.transformedEvents.filter((e) => 'transformedEvent' in e)).toHaveLength(2);
  });

  it('the stack names the transformation and library frames and stops at transformEvent', async () => {
    const lib: SandboxLibrary = { importName: 'jsLib1', name: 'js Lib1', code: 'export function add(a, b) {\n  return a + z2;\n}' };
    const result = await runTransformation({
      code: 'import { add } from "jsLib1";\nexport function transformEvent(event) {\n  return add(1, 2);\n}',
      name: 'My Transformation',
      libraries: [lib],
      events: [events[0]!],
    });
    const [entry] = result.transformedEvents;
    expect(entry).toEqual({
      error: "ReferenceError: 'z2' is not defined\n    at add (library jsLib1:2:14)\n    at transformEvent (My Transformation:3:3)",
      metadata: events[0]!.metadata,
    });
  });

  it('a thrown non-error value becomes its text', async () => {
    const result = await run(`export function transformEvent(event) { if (event.n === 1) throw 'plain'; throw { message: 'object' }; }`);
    expect(result.transformedEvents.map((e) => ('error' in e ? e.error : null))).toEqual(['plain', 'object', 'object']);
  });

  it('metadata(event) returns the input metadata of that messageId, or {}', async () => {
    const result = await run(`
      export function transformEvent(event, metadata) {
        return { own: metadata(event).sourceId, other: metadata({ messageId: 'm3' }).sourceId, none: metadata({ messageId: 'zz' }), nothing: metadata() };
      }`);
    expect(result.transformedEvents[0]).toEqual({
      transformedEvent: { own: 's1', other: 's3', none: {}, nothing: {} },
      metadata: events[0]!.metadata,
    });
  });

  it('an event without metadata gets {}', async () => {
    const result = await runTransformation({
      code: 'export function transformEvent(event) { return event; }',
      libraries: [],
      events: [{ message: { messageId: 'x' } }],
    });
    expect(result.transformedEvents).toEqual([{ transformedEvent: { messageId: 'x' }, metadata: {} }]);
  });
});

describe('transformBatch', () => {
  it('outputs take the metadata of their own messageId', async () => {
    const result = await run(`
      export function transformBatch(events, metadata) {
        return events.slice().reverse().map((e) => ({ messageId: e.messageId, seen: metadata(e).sourceId }));
      }`);
    expect(result.transformedEvents).toEqual([
      { transformedEvent: { messageId: 'm3', seen: 's3' }, metadata: events[2]!.metadata },
      { transformedEvent: { messageId: 'm2', seen: 's2' }, metadata: events[1]!.metadata },
      { transformedEvent: { messageId: 'm1', seen: 's1' }, metadata: events[0]!.metadata },
    ]);
  });

  it('an output without a known messageId gets {} as metadata', async () => {
    const result = await run('export async function transformBatch(events) { return [{ merged: events.length }]; }');
    expect(result.transformedEvents).toEqual([{ transformedEvent: { merged: 3 }, metadata: {} }]);
  });

  it('a throw is a single error entry with empty metadata', async () => {
    const result = await run('export function transformBatch(events) {\n  throw new Error("batch broke");\n}');
    expect(result.transformedEvents).toEqual([{ error: 'Error: batch broke\n    at transformBatch (base transformation:2:18)', metadata: {} }]);
  });

  it('a non-array return is a single error', async () => {
    const result = await run('export function transformBatch(events) { return { not: "array" }; }');
    expect(result.transformedEvents).toEqual([{ error: 'returned events from transformBatch(event) is not an array', metadata: {} }]);
  });

  it('each non-object element is its own error, objects still pass', async () => {
    const result = await run('export function transformBatch(events) { return [events[0], "x", 7]; }');
    expect(result.transformedEvents).toEqual([
      { transformedEvent: events[0]!.message, metadata: events[0]!.metadata },
      { error: 'returned event in events array from transformBatch(events) is not an object', metadata: {} },
      { error: 'returned event in events array from transformBatch(events) is not an object', metadata: {} },
    ]);
  });
});

describe('module contract', () => {
  it('exporting neither entry point fails the invocation with the exact message', async () => {
    const err = await failure(run('function transformEvent(e) { return e; }\nexport function other() {}'));
    expect(err.kind).toBe('contract');
    expect(err.message).toBe('Expected one of transformEvent,transformBatch. Found ');
  });

  it('exporting both entry points fails the invocation with both names', async () => {
    const err = await failure(run('export function transformEvent(e) { return e; }\nexport function transformBatch(e) { return e; }'));
    expect(err.kind).toBe('contract');
    expect(err.message).toBe('Expected one of transformEvent,transformBatch. Found transformEvent,transformBatch');
  });

  it('a syntax error is a compile failure naming the transformation', async () => {
    const err = await failure(run('export function transformEvent(e) {\n  return 1 +;\n}', { name: 'Broken' }));
    expect(err.kind).toBe('compile');
    expect(err.message).toMatch(/^SyntaxError: .+\n {4}at Broken:2:\d+$/);
  });

  it('a throw while the module evaluates fails the whole invocation', async () => {
    const err = await failure(run('throw new Error("top level");\nexport function transformEvent(e) { return e; }'));
    expect(err.kind).toBe('runtime');
    expect(err.message.split('\n')[0]).toBe('Error: top level');
  });
});

describe('libraries', () => {
  const lib: SandboxLibrary = {
    importName: 'myLib',
    name: 'my lib',
    code: 'export default function greet(n) { return "hi " + n; }\nexport const twice = (x) => x * 2;\nexport const tag = "lib";',
  };

  it.each([
    ['named', 'import { twice } from "myLib";', 'twice(event.n)'],
    ['default', 'import greet from "myLib";', 'greet(event.n)'],
    ['default and named', 'import greet, { twice } from "myLib";', 'greet(twice(event.n))'],
    ['aliased', 'import { twice as double } from "myLib";', 'double(event.n)'],
    ['namespace', 'import * as L from "myLib";', 'L.tag + L.twice(event.n) + L.default(0)'],
  ])('a %s import resolves by importName', async (_form, importLine, expression) => {
    const result = await runTransformation({
      code: `${importLine}\nexport function transformEvent(event) { return { v: ${expression} }; }`,
      libraries: [lib],
      events: [events[1]!],
    });
    const greet = (n: unknown) => `hi ${String(n)}`;
    const expected: Record<string, unknown> = {
      named: 4,
      default: greet(2),
      'default and named': greet(4),
      aliased: 4,
      namespace: 'lib4hi 0',
    };
    expect(result.transformedEvents).toEqual([{ transformedEvent: { v: expected[_form] }, metadata: events[1]!.metadata }]);
  });

  it('a library can import another library', async () => {
    const base: SandboxLibrary = { importName: 'base', name: 'base', code: 'export const one = 1;' };
    const derived: SandboxLibrary = {
      importName: 'derived',
      name: 'derived',
      code: 'import { one } from "base";\nexport const two = one + 1;',
    };
    const result = await runTransformation({
      code: 'import { two } from "derived";\nexport function transformEvent() { return { two }; }',
      libraries: [base, derived],
      events: [events[0]!],
    });
    expect(result.transformedEvents).toEqual([{ transformedEvent: { two: 2 }, metadata: events[0]!.metadata }]);
  });

  it('an unknown import fails the whole invocation with the exact message', async () => {
    const err = await failure(
      runTransformation({
        code: 'import { x } from "missingLib";\nexport function transformEvent(e) { return e; }',
        libraries: [lib],
        events,
      }),
    );
    expect(err.kind).toBe('import');
    expect(err.message).toBe('import from missingLib failed. Module not found.');
  });

  it('checkLibrary accepts a library that compiles and evaluates', async () => {
    await expect(checkLibrary(lib)).resolves.toBeUndefined();
  });

  it('checkLibrary rejects a syntax error with the library file name', async () => {
    const err = await failure(checkLibrary({ importName: 'bad', name: 'bad', code: 'export const x = ;' }));
    expect(err.kind).toBe('compile');
    expect(err.message).toMatch(/^SyntaxError: .+\n {4}at library bad:1:\d+$/);
  });

  it('checkLibrary rejects a library that throws while evaluating', async () => {
    const err = await failure(checkLibrary({ importName: 'boom', name: 'boom', code: 'throw new RangeError("nope");' }));
    expect(err.kind).toBe('runtime');
    expect(err.message.split('\n')[0]).toBe('RangeError: nope');
  });

  it('checkLibrary rejects imports it cannot resolve', async () => {
    const err = await failure(checkLibrary({ importName: 'needy', name: 'needy', code: 'import x from "other";\nexport default x;' }));
    expect(err.kind).toBe('import');
    expect(err.message).toBe('import from other failed. Module not found.');
  });
});

describe('log', () => {
  const code = 'export function transformEvent(event) { log("seen", event.n, { a: [1] }, null); return event; }';

  it('in test mode each call appends "Log:" and each argument, objects as JSON', async () => {
    const result = await run(code, { testMode: true });
    expect(result.logs).toEqual(['Log: seen 1 {"a":[1]} null', 'Log: seen 2 {"a":[1]} null', 'Log: seen 3 {"a":[1]} null']);
  });

  it('outside test mode logs are not collected', async () => {
    const result = await run(code);
    expect(result.logs).toEqual([]);
    expect(result.transformedEvents).toHaveLength(3);
  });

  it('log works while the module evaluates', async () => {
    const result = await run('log("loading");\nexport function transformEvent(e) { return e; }', { testMode: true });
    expect(result.logs).toEqual(['Log: loading']);
  });
});

describe('globals', () => {
  it('no host object is reachable from user code', async () => {
    const result = await runTransformation({
      code: `export function transformEvent() {
        return {
          process: typeof process, require: typeof require, module: typeof module, Buffer: typeof Buffer,
          setTimeout: typeof setTimeout, WebAssembly: typeof WebAssembly, console: typeof console,
          globals: Object.getOwnPropertyNames(globalThis).filter((k) => /process|require|host|worker|std|os/i.test(k)),
          ctorEscape: (() => { try { return typeof (function () {}).constructor('return process')(); } catch (e) { return String(e); } })(),
        };
      }`,
      libraries: [],
      events: [events[0]!],
    });
    expect(result.transformedEvents[0]).toEqual({
      transformedEvent: {
        process: 'undefined',
        require: 'undefined',
        module: 'undefined',
        Buffer: 'undefined',
        setTimeout: 'undefined',
        WebAssembly: 'undefined',
        console: 'undefined',
        globals: [],
        ctorEscape: "ReferenceError: 'process' is not defined",
      },
      metadata: events[0]!.metadata,
    });
  });

  it('fetch, fetchV2 and log are functions', async () => {
    const result = await run('export function transformEvent() { return { t: [typeof fetch, typeof fetchV2, typeof log] }; }', {
      events: [events[0]!],
    });
    expect(result.transformedEvents[0]).toMatchObject({ transformedEvent: { t: ['function', 'function', 'function'] } });
  });
});
