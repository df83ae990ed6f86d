import { applyRules, compileRules } from '../../shared/domain/rules/rules';
import type { Rule } from '../../shared/domain/rules/schemas';
import { CompiledPlan, loadAjv } from '../../shared/domain/tracking-plans/validator';
import { compileUserRegex, MAX_PROGRAM_SIZE, userRegexProblem } from '../../shared/domain/user-regex';

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

  it('runs the catastrophic patterns of a backtracking engine in linear time', () => {
    const hostile = 'a'.repeat(50_000) + '!';
    const started = performance.now();
    for (const pattern of ['^(a+)+$', '(a|aa)+$', '((\\w+)\\s?)+$', '((a+))+$', '^(?:(?:a+))+$']) expect(compileUserRegex(pattern).test(hostile)).toBe(false);
    expect(compileUserRegex('^\\d*\\d*\\d*x').test('1'.repeat(50_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
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
});
