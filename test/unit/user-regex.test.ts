import { applyRules, compileRules } from '../../shared/domain/rules/rules';
import type { Rule } from '../../shared/domain/rules/schemas';
import { CompiledPlan, loadAjv } from '../../shared/domain/tracking-plans/validator';
import { compileUserRegex, MatchMeter, MAX_EVENT_MATCH_WORK, MAX_MATCHED_CHARS, MAX_PROGRAM_SIZE, userRegexProblem } from '../../shared/domain/user-regex';

/** User regular expressions: compiled by RE2 (linear time) for rules and plans alike, or refused naming why. */
describe('a user regular expression', () => {
  it.each([
    ['(a)\\1', 'uses a backreference, \\1,'],
    ['(?<n>a)\\k<n>', 'uses a backreference, \\k<name>,'],
    ['a(?=b)', 'uses a lookahead, (?=…),'],
    ['a(?!b)', 'uses a lookahead, (?!…),'],
    ['(?<=a)b', 'uses a lookbehind, (?<=…),'],
    ['(?<!a)b', 'uses a lookbehind, (?<!…),'],
    ['[', 'is not a valid regular expression'],
    ['a{2000}', 'is not supported by RE2'],
    ['(?:[ab]?){300}[ab]{300}x', `is too complex: it compiles to 903 instructions, at most ${MAX_PROGRAM_SIZE}`],
  ])('%s is refused: %s', (pattern, problem) => {
    const refusal = userRegexProblem(pattern);
    expect(refusal?.startsWith(`/${pattern}/ `)).toBe(true);
    expect(refusal).toContain(problem);
  });

  it('takes classes, named groups and escapes that only look like lookarounds or backreferences', () => {
    for (const pattern of ['[(?=]', '[\\d-]', '(?<name>a)b', '\\(?!x', '^\\d*\\d*\\d*x', '^(a+)+$', '\\u{1F600}'])
      expect(userRegexProblem(pattern)).toBeUndefined();
  });

  it('matches as JavaScript does for the syntax users write, case-insensitively when asked', () => {
    expect(compileUserRegex('@EXAMPLE\\.com$', { ignoreCase: true }).test('ann@example.com')).toBe(true);
    expect(compileUserRegex('@EXAMPLE\\.com$').test('ann@example.com')).toBe(false);
    expect(compileUserRegex('^(?<word>\\w+)-\\d{2,}$').test('abc-42')).toBe(true);
    expect(compileUserRegex('^\\u{1F600}+$').test('\u{1F600}\u{1F600}')).toBe(true);
    expect(compileUserRegex('^[^]$').test('\n')).toBe(true);
  });

  it('runs the catastrophic patterns of a backtracking engine in linear time, on as much text as it reads', () => {
    const hostile = `${'a'.repeat(MAX_MATCHED_CHARS - 1)}!`;
    const started = performance.now();
    for (const pattern of ['^(a+)+$', '(a|aa)+$', '((\\w+)\\s?)+$', '((a+))+$', '^(?:(?:a+))+$']) expect(compileUserRegex(pattern).test(hostile)).toBe(false);
    expect(compileUserRegex('^\\d*\\d*\\d*x').test('1'.repeat(MAX_MATCHED_CHARS))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('what a user pattern is matched on', () => {
  const LARGE = '(?:[ab]?){132}[ab]{132}[^ab]';

  it('is at most MAX_MATCHED_CHARS characters of a text, fewer for a large program; a longer text is not a mismatch but noted as not checked', () => {
    expect(compileUserRegex('^a+$').maxChars).toBe(MAX_MATCHED_CHARS);
    const large = compileUserRegex(LARGE);
    expect(large.maxChars).toBeLessThan(MAX_MATCHED_CHARS);
    expect(large.maxChars * 399).toBeLessThanOrEqual(MAX_EVENT_MATCH_WORK);

    const meter = new MatchMeter();
    const regex = compileUserRegex('^a+$', { meter });
    expect(regex.test('a'.repeat(MAX_MATCHED_CHARS))).toBe(true);
    expect(regex.test('a'.repeat(MAX_MATCHED_CHARS + 1))).toBe(true);
    expect(regex.test(`b${'a'.repeat(MAX_MATCHED_CHARS)}`)).toBe(true);
    expect(meter.unchecked).toEqual({ problem: 'is longer than the 4,096 characters /^a+$/ is checked on', text: 'a'.repeat(MAX_MATCHED_CHARS + 1) });
  });

  it("is bounded for all of one event's patterns together: past the event's work a text is not matched, and the next event starts afresh", () => {
    const meter = new MatchMeter();
    const regex = compileUserRegex(LARGE, { meter });
    const value = 'ab'.repeat(regex.maxChars / 2);
    const verdicts = Array.from({ length: 4 }, () => regex.test(value));
    expect(verdicts).toEqual([false, true, true, true]);
    expect(meter.unchecked).toEqual({
      problem: `is not checked against /${LARGE}/: the event's patterns did all the matching an event may`,
      text: value,
    });
    meter.start();
    expect([regex.test(value), meter.unchecked]).toEqual([false, undefined]);
  });
});

describe('a rule stored with a pattern RE2 refuses', () => {
  it('fails every event it sees, naming the pattern, and never runs it', () => {
    const stored: Rule[] = [{ type: 'drop-if', match: 'all', conditions: [{ path: 'event', op: 'matches', pattern: '(a)\\1' }] }];
    expect(applyRules(compileRules(stored), { type: 'track', event: 'aa' })).toEqual({
      error: expect.stringMatching(/^drop-if rule: the pattern \/\(a\)\\1\/ uses a backreference/),
      rule: '1-drop-if',
    });
  });
});

describe("a connection's rules", () => {
  const rules = (pattern: string, n: number): Rule[] => [
    { type: 'drop-if', match: 'any', conditions: Array.from({ length: n }, (_, i) => ({ path: `properties.v${i}`, op: 'matches' as const, pattern })) },
  ];
  const event = (n: number, value: string) => ({
    type: 'track',
    event: 'E',
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, value])),
  });

  it('match a long value on its first MAX_MATCHED_CHARS characters', () => {
    const compiled = compileRules(rules('^a+$', 1));
    expect(applyRules(compiled, event(1, `${'a'.repeat(MAX_MATCHED_CHARS)}b`))).toEqual({ stopped: '1-drop-if', index: 0 });
    expect(applyRules(compiled, event(1, `${'a'.repeat(MAX_MATCHED_CHARS - 1)}b`))).toEqual({ event: event(1, `${'a'.repeat(MAX_MATCHED_CHARS - 1)}b`) });
  });

  it("fail an event whose patterns would do more than one event's matching, naming the pattern; the next event is matched afresh", () => {
    const compiled = compileRules(rules('^b', 50));
    expect(applyRules(compiled, event(50, 'a'.repeat(MAX_MATCHED_CHARS)))).toEqual({
      error: "drop-if rule: a value is not checked against /^b/: the event's patterns did all the matching an event may",
      rule: '1-drop-if',
    });
    expect(applyRules(compiled, event(50, 'a'.repeat(100)))).toEqual({ event: event(50, 'a'.repeat(100)) });
  });
});

describe("a tracking plan's patterns", () => {
  const plan = async (schema: Record<string, unknown>) => new CompiledPlan(await loadAjv(), 'p', 1, [{ type: 'identify', schema }]);

  it('are refused with the field and the pattern named, nested ones and patternProperties names included', async () => {
    await expect(plan({ type: 'object', properties: { email: { type: 'string', pattern: '(a)\\1' } } })).rejects.toThrow(
      'body.specs[0].schema.properties.email.pattern: /(a)\\1/ uses a backreference',
    );
    await expect(plan({ type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } })).rejects.toThrow(
      'body.specs[0].schema.patternProperties["^(?=x)"]: /^(?=x)/ uses a lookahead',
    );
    await expect(plan({ anyOf: [{ type: 'object', propertyNames: { pattern: '(?<=a)b' } }] })).rejects.toThrow(
      'body.specs[0].schema.anyOf[0].propertyNames.pattern: /(?<=a)b/ uses a lookbehind',
    );
    // A property named like a keyword is a name, not a pattern.
    await expect(plan({ type: 'object', properties: { pattern: { type: 'string' }, enum: { const: '(a)\\1' } } })).resolves.toBeDefined();
  });

  it('validate with RE2: pattern, patternProperties and propertyNames', async () => {
    const compiled = await plan({
      type: 'object',
      properties: { email: { type: 'string', pattern: '^[^@]+@example\\.com$' } },
      patternProperties: { '^x-': { type: 'number' } },
      propertyNames: { pattern: '^[a-z-]+$' },
    });
    const check = (traits: Record<string, unknown>) => compiled.check({ type: 'identify', traits }).violations.map((v) => v.message);
    expect(check({ email: 'ann@example.com', 'x-a': 1 })).toEqual([]);
    expect(check({ email: 'ann@example.org', 'x-a': 'one' })).toEqual(['must match pattern "^[^@]+@example\\.com$"', 'must be number']);
    expect(check({ Email: 'x' })).toEqual(['must match pattern "^[a-z-]+$"', 'property name must be valid']);
  });

  it('make a value longer than a pattern reads a violation, not a pass and not a verdict on its beginning', async () => {
    const compiled = await plan({ type: 'object', properties: { name: { type: 'string', pattern: '^a+$' } } });
    const check = (name: string) => compiled.check({ type: 'identify', traits: { name } }).violations;
    expect(check('a'.repeat(MAX_MATCHED_CHARS))).toEqual([]);
    expect(check('a'.repeat(MAX_MATCHED_CHARS + 1))).toEqual([
      {
        type: 'Unknown-Violation',
        message: 'is longer than the 4,096 characters /^a+$/ is checked on',
        meta: { instancePath: '/traits/name' },
      },
    ]);
  });

  it('make a property name longer than a patternProperties or propertyNames pattern reads a violation', async () => {
    const long = `x-${'a'.repeat(MAX_MATCHED_CHARS)}`;
    const byPattern = await plan({ type: 'object', patternProperties: { '^x-': { type: 'number' } } });
    expect(byPattern.check({ type: 'identify', traits: { [long]: 1 } }).violations).toEqual([
      { type: 'Unknown-Violation', message: 'is longer than the 4,096 characters /^x-/ is checked on', meta: { instancePath: `/traits/${long}` } },
    ]);
    const byNames = await plan({ type: 'object', propertyNames: { pattern: '^[a-z-]+$' } });
    expect(byNames.check({ type: 'identify', traits: { [long]: 1 } }).violations.map((v) => v.message)).toEqual([
      'is longer than the 4,096 characters /^[a-z-]+$/ is checked on',
    ]);
  });

  it("share one event's matching work: past it, the event is a violation naming the pattern and the first value not checked", async () => {
    const compiled = await plan({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } } } });
    const check = (tags: string[]) => compiled.check({ type: 'identify', traits: { tags } }).violations;
    expect(check(Array.from({ length: 100 }, () => 'tag'))).toEqual([]);
    const violations = check(Array.from({ length: 8000 }, () => 'tag'));
    expect(violations).toEqual([
      {
        type: 'Unknown-Violation',
        message: "is not checked against /^[a-z]+$/: the event's patterns did all the matching an event may",
        meta: { instancePath: expect.stringMatching(/^\/traits\/tags\/\d+$/) },
      },
    ]);
  });
});
