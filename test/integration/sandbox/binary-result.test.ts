import { readOutcome } from '../../../shared/sandbox/bjson';
import { BINARY_RESULT_MIN_BYTES, QuickJsEngine } from '../../../shared/sandbox/engine';
import { runTransformation, SandboxError, shutdownSandbox } from '../../../shared/sandbox';
import { DEFAULT_LIMITS } from '../../../shared/sandbox/limits';
import type { EngineOutcome } from '../../../shared/sandbox/protocol';

// Results go back either in QuickJS's binary format or as JSON text. Whichever is used, the caller
// must get exactly what JSON.stringify in the guest would have produced.

afterAll(() => shutdownSandbox());

const events = [{ message: { messageId: 'm1' }, metadata: { k: 'v' } }];

/** Expressions for a transformed event, and the form the result is expected to travel in. */
const cases: Array<[string, 'binary' | 'text', string]> = [
  ['plain nested data', 'binary', `({ a: 1, s: 'x', n: null, t: true, f: false, arr: [1, 'two', { three: [3, [4]] }], o: {} })`],
  ['-0, NaN and Infinity', 'binary', `({ z: -0, nan: NaN, inf: Infinity, ninf: -Infinity, arr: [-0, NaN, Infinity, 1.5, -2147483649, 1e21, 5e-324] })`],
  ['undefined dropped in objects and null in arrays', 'binary', `({ u: undefined, keep: 1, arr: [undefined, 2, undefined] })`],
  ['functions and symbols dropped in objects and null in arrays', 'text', `({ f() {}, s: Symbol('s'), arr: [function () {}, Symbol('t'), 3], keep: 1 })`],
  ['array holes', 'binary', `({ h: [1, , 3, , ], empty: [, , ] })`],
  ['a sparse array', 'binary', `(() => { const a = []; a[6] = 'six'; a[2] = { two: 2 }; return { a }; })()`],
  ['integer-like keys, in JSON order', 'binary', `({ b: 1, 10: 'ten', 2: 'two', '4294967295': 'not an index', a: { 1: 1, z: 2, 0: 0 } })`],
  ['an own __proto__ key', 'binary', `({ ['__proto__']: { x: 1 }, y: 2 })`],
  [
    'strings that need escapes',
    'binary',
    String.raw`({ t: 'tab\tquote"back\\slash\u0000\u001f\u007f\u2028 é€😀 \ud800 \udc00 x\ud83d', [String.fromCharCode(0xd83d) + 'k']: 'lone key' })`,
  ],
  ['a null-prototype object', 'binary', `Object.assign(Object.create(null), { a: 1, nested: Object.assign(Object.create(null), { b: [2] }) })`],
  ['a class instance without toJSON', 'binary', `(() => { class P { constructor() { this.x = 1; } get y() { return 2; } } return { p: new P() }; })()`],
  [
    'non-enumerable and symbol keys',
    'binary',
    `(() => { const o = { a: 1, [Symbol('s')]: 2 }; Object.defineProperty(o, 'hidden', { value: 3 }); return { o }; })()`,
  ],
  ['a Date (toJSON)', 'text', `({ d: new Date(0), bad: new Date(NaN) })`],
  [
    'a class instance with toJSON',
    'text',
    `(() => { class P { constructor() { this.x = 1; } toJSON(key) { return { p: this.x + 1, key }; } } return { p: new P() }; })()`,
  ],
  ['an own non-enumerable toJSON', 'text', `(() => { const o = { a: 1 }; Object.defineProperty(o, 'toJSON', { value: () => 'replaced' }); return { o }; })()`],
  ['an own enumerable non-callable toJSON', 'text', `({ o: { toJSON: 5, a: 1 } })`],
  ['a prototype with toJSON', 'text', `({ o: Object.create({ toJSON() { return 'from proto'; } }) })`],
  ['a getter, invoked once', 'text', `(() => { let calls = 0; return { g: { get v() { return ++calls; } }, after: { get calls() { return calls; } } }; })()`],
  [
    'an array element getter, invoked once',
    'text',
    `(() => { let calls = 0; const a = [0]; Object.defineProperty(a, 0, { get() { return ++calls; }, enumerable: true }); return { a, b: [1] }; })()`,
  ],
  ['boxed primitives', 'text', `({ n: Object(1), s: Object('s'), b: Object(false) })`],
  ['a shared (not circular) reference', 'text', `(() => { const s = { v: 1 }; return { a: s, b: [s] }; })()`],
  ['nesting deeper than the binary path takes', 'text', `(() => { let o = { leaf: 1 }; for (let i = 0; i < 300; i++) o = { o }; return o; })()`],
];

function expected(expression: string): string {
  // The same expression in this process: V8's JSON is the reference for what the guest's JSON gives.
  return JSON.stringify(JSON.parse(JSON.stringify(new Function(`return ${expression};`)())));
}

function transformation(expression: string): string {
  return `export function transformEvent() { return ${expression}; }`;
}

describe('results of every shape are what JSON text gives', () => {
  it.each(cases)('%s', async (_name, _path, expression) => {
    const result = await runTransformation({ code: transformation(expression), libraries: [], events });
    expect(result.transformedEvents).toHaveLength(1);
    const entry = result.transformedEvents[0]!;
    expect('transformedEvent' in entry && JSON.stringify(entry.transformedEvent)).toBe(expected(expression));
    expect(entry.metadata).toEqual({ k: 'v' });
  });
});

describe('the engine with binary results', () => {
  // Offers every result to the binary path, however small, so each shape exercises it.
  const binary = new QuickJsEngine({ binaryResultMinBytes: 0 });
  const text = new QuickJsEngine();
  const defaults = new QuickJsEngine();
  const limits = DEFAULT_LIMITS;
  const job = (code: string, outputBytes = limits.outputBytes) => ({
    code,
    name: 't',
    libraries: [],
    input: JSON.stringify(events),
    testMode: true,
    limits: { ...limits, outputBytes },
    allowlist: '',
  });
  const run = async (engine: QuickJsEngine, code: string, outputBytes?: number): Promise<EngineOutcome> => {
    const outcome = await engine.run(job(code, outputBytes));
    await engine.tidy();
    return outcome;
  };

  beforeAll(async () => {
    await binary.tidy();
    await text.tidy();
    await defaults.tidy();
    await expect(binary.probeBinaryOutput()).resolves.toBe(true);
    // The probe forces the binary path even though its result is below the default threshold.
    await expect(defaults.probeBinaryOutput()).resolves.toBe(true);
    (text as unknown as { binaryOutput: boolean }).binaryOutput = false;
  });

  it.each([
    ['a small result', 1, 'text'],
    ['a result below the threshold', Math.floor(BINARY_RESULT_MIN_BYTES / 64), 'text'],
    ['a result above the threshold', Math.ceil(BINARY_RESULT_MIN_BYTES / 4), 'binary'],
  ] as const)('by default, %s goes as %s with the same value', async (_name, rows, path) => {
    const code = `export function transformBatch() { return Array.from({ length: ${rows} }, (_, i) => ({ i, s: 'abcdefgh' })); }`;
    const fromText = await run(text, code);
    const fromDefaults = await run(defaults, code);
    expect(fromDefaults.ok && (typeof fromDefaults.output === 'string' ? 'text' : 'binary')).toBe(path);
    if (!fromText.ok || !fromDefaults.ok) throw new Error('expected results');
    expect(typeof fromText.output).toBe('string');
    expect(JSON.stringify(readOutcome(fromDefaults.output))).toBe(fromText.output);
  });

  it('by default, a single row goes as text even above the threshold, with the same value', async () => {
    const code = `export function transformBatch() { return [{ s: 'x'.repeat(${BINARY_RESULT_MIN_BYTES * 2}) }]; }`;
    const fromText = await run(text, code);
    const fromDefaults = await run(defaults, code);
    expect(fromDefaults.ok && typeof fromDefaults.output).toBe('string');
    expect(fromDefaults).toEqual(fromText);
    // Two such rows are worth the binary form.
    const two = await run(defaults, code.replace('return [', 'return [{ s: 1 }, '));
    expect(two.ok && typeof two.output).toBe('object');
  });

  it.each(cases)('%s: same value from both paths, over the expected one', async (_name, path, expression) => {
    const fromText = await run(text, transformation(expression));
    const fromBinary = await run(binary, transformation(expression));
    expect(fromText.ok && typeof fromText.output).toBe('string');
    expect(fromBinary.ok && (typeof fromBinary.output === 'string' ? 'text' : 'binary')).toBe(path);
    if (!fromText.ok || !fromBinary.ok) return;
    expect(JSON.stringify(readOutcome(fromBinary.output))).toBe(fromText.output);
  });

  it.each([
    ['a cycle', `(() => { const o = { a: 1 }; o.self = { o }; return o; })()`],
    ['a BigInt', `({ n: 1n })`],
    ['a BigInt after a getter', `(() => { let calls = 0; return { g: { get v() { log('getter', ++calls); return calls; } }, n: [1n] }; })()`],
    ['a toJSON on Object.prototype', `(() => { Object.prototype.toJSON = function () { return 'x'; }; return { a: 1 }; })()`],
    [
      'an index getter on Array.prototype',
      `(() => { Object.defineProperty(Array.prototype, 1, { get() { return 'from prototype'; }, configurable: true }); return { a: [0, , 2] }; })()`,
    ],
  ])('%s: the same outcome as JSON text', async (_name, expression) => {
    const fromText = await run(text, transformation(expression));
    const fromBinary = await run(binary, transformation(expression));
    expect(fromBinary).toEqual(fromText);
  });

  it('the binary check, compiled after user code ran, ignores globals that code replaced', async () => {
    const code = transformation(
      `(() => { globalThis.Int32Array = function () { throw new Error('replaced'); }; Object.getOwnPropertyNames = () => []; return { a: [1, { b: [2] }] }; })()`,
    );
    const fromText = await run(text, code);
    const fromBinary = await run(binary, code);
    expect(fromBinary.ok && typeof fromBinary.output).toBe('object');
    if (!fromText.ok || !fromBinary.ok) throw new Error('expected results');
    expect(JSON.stringify(readOutcome(fromBinary.output))).toBe(fromText.output);
  });

  it('logs and error rows travel the same way', async () => {
    const code = `export function transformBatch(events) { log('a', { b: [1, undefined] }, 'é€'); return [{ x: 1 }, 'bad']; }`;
    const fromText = await run(text, code);
    const fromBinary = await run(binary, code);
    expect(fromBinary.ok && typeof fromBinary.output).toBe('object');
    if (!fromText.ok || !fromBinary.ok) throw new Error('expected results');
    expect(JSON.stringify(readOutcome(fromBinary.output))).toBe(fromText.output);
  });

  it('applies the output limit to the exact JSON size on the binary path', async () => {
    const expression = `({ t: 'é€😀"\\n\\u0001'.repeat(300), n: [-0, 1e21, 0.1, -7], u: undefined, h: [, 1] })`;
    const code = transformation(expression);
    const sized = await run(text, code);
    if (!sized.ok || typeof sized.output !== 'string') throw new Error('expected a text result');
    const exact = Buffer.byteLength(sized.output, 'utf8');
    const fits = await run(binary, code, exact);
    expect(fits.ok && typeof fits.output).toBe('object');
    const over = await run(binary, code, exact - 1);
    expect(over).toEqual({ ok: false, kind: 'output', message: `output size limit of ${exact - 1} bytes exceeded` });
    await expect(runTransformation({ code, libraries: [], events, limits: { outputBytes: exact - 1 } })).rejects.toBeInstanceOf(SandboxError);
  });
});
