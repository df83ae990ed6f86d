import { decodePlainJson, encodePlainJson } from '../../../shared/sandbox/bjson';
import { QuickJsEngine } from '../../../shared/sandbox/engine';
import { DEFAULT_LIMITS } from '../../../shared/sandbox/limits';

const echo = 'export function transformBatch(events) { return [{ events }]; }';

function awkwardMessage(): Record<string, unknown> {
  const message: Record<string, unknown> = {
    messageId: 'a1',
    text: 'tab\tquote"back\\slash\u0000\u001f\u2028é€😀',
    lone: '\ud800 and \udc00',
    numbers: [0, -0, 1.5, -2147483648, 2147483647, 2147483648, 1e21, 5e-324, NaN, Infinity],
    holes: [undefined, () => 1, Symbol('s'), null],
    skipped: undefined,
    fn: () => 2,
    10: 'ten',
    2: 'two',
    '4294967295': 'big key',
    nested: { a: [{ b: [[]] }], empty: {} },
    nullProto: Object.assign(Object.create(null) as object, { x: 1 }),
  };
  Object.defineProperty(message, '__proto__', { value: { own: true }, enumerable: true, writable: true, configurable: true });
  return message;
}

/** Values that take the codec's less common paths: long and wide strings, many keys, big numbers. */
function longPathsMessage(): Record<string, unknown> {
  const manyKeys: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) manyKeys[`key ${i}`] = i % 3 === 0 ? undefined : { i, s: 'x'.repeat(i % 70) };
  return {
    messageId: 'long',
    latin: 'é'.repeat(47) + 'ÿ'.repeat(200),
    wideLate: 'a'.repeat(100) + '€',
    wideEarly: '😀' + 'b'.repeat(100),
    short: ['', 'a', 'ab', 'abcdefghijkl', 'abcdefghijklm', 'é€'],
    numbers: [63, 64, -64, -65, 8191, 8192, -2147483647, 123456789, 0.1, -1.5e300],
    manyKeys,
  };
}

describe('binary encoding of plain JSON data', () => {
  it('decodes values on the less common paths back to what JSON text would give', () => {
    const value = [{ message: longPathsMessage(), metadata: {} }];
    const bytes = encodePlainJson(value);
    expect(bytes).toBeDefined();
    expect(JSON.stringify(decodePlainJson(bytes!))).toBe(JSON.stringify(value));
  });

  it('decodes back to what JSON text would give', () => {
    const value = [{ message: awkwardMessage(), metadata: { k: 'v' } }];
    const bytes = encodePlainJson(value);
    expect(bytes).toBeDefined();
    expect(JSON.stringify(decodePlainJson(bytes!))).toBe(JSON.stringify(value));
  });

  it.each([
    ['a Date', { d: new Date(0) }],
    ['a toJSON method', { x: { toJSON: () => 'x' } }],
    ['a class instance', { x: new (class Point {})() }],
    ['a boxed primitive', { n: Object(1) as unknown }],
    ['a BigInt', { n: 1n }],
    ['nesting deeper than the guest parser is trusted with', JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown],
  ])('leaves %s to JSON text', (_name, value) => {
    expect(encodePlainJson(value)).toBeUndefined();
  });

  it('leaves everything to JSON text while Object.prototype has an enumerable property', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      expect(encodePlainJson([{ message: { a: 1 } }])).toBeUndefined();
    } finally {
      delete proto.polluted;
    }
    expect(encodePlainJson([{ message: { a: 1 } }])).toBeDefined();
  });

  it('leaves a cycle to JSON text, which then throws as before', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(encodePlainJson([cyclic])).toBeUndefined();
  });
});

describe('the engine with binary input', () => {
  const engine = new QuickJsEngine();
  const job = { code: echo, name: 'echo', libraries: [], testMode: false, limits: DEFAULT_LIMITS, allowlist: '' };
  const events = [{ message: awkwardMessage(), metadata: {} }];

  beforeAll(() => engine.tidy());

  it('passes the probe of this QuickJS build', async () => {
    await expect(engine.probeBinaryInput()).resolves.toBe(true);
  });

  it('gives the guest the same events as JSON text does', async () => {
    const events = [
      { message: awkwardMessage(), metadata: {} },
      { message: longPathsMessage(), metadata: {} },
    ];
    const fromText = await engine.run({ ...job, input: JSON.stringify(events) });
    await engine.tidy();
    const fromBinary = await engine.run({ ...job, input: encodePlainJson(events)! });
    await engine.tidy();
    expect(fromBinary).toEqual(fromText);
    expect(fromText.ok).toBe(true);
  });

  it('falls back to JSON text when the build reads the format differently', async () => {
    const fallback = new QuickJsEngine();
    await fallback.tidy();
    (fallback as unknown as { binaryInput: boolean }).binaryInput = false;
    const fromText = await engine.run({ ...job, input: JSON.stringify(events) });
    await engine.tidy();
    const converted = await fallback.run({ ...job, input: encodePlainJson(events)! });
    await fallback.tidy();
    expect(converted).toEqual(fromText);
  });
});
