import type { Message } from '../../destinations/types';
import { MIN_SALT_LENGTH } from '../credentials/schemas';
import { ValidationError } from '../errors';
import { MatchMeter, userRegexProblem } from '../user-regex';
import { validate } from '../validation';
import { ruleLabel, Rules, type Rule } from './schemas';
import { RuleFailure, STOP, stepOf, type Step } from './steps';

/** A connection's rules, compiled once: what applyRules runs for every event. */
export interface CompiledRules {
  readonly steps: readonly { label: string; run: Step }[];
  /** The credentials the rules read (hash salts): loaded only when there is one. */
  readonly credentialKeys: readonly string[];
  /** The matching work of the event the rules are applied to (their patterns', all together). */
  readonly meter?: MatchMeter;
}

/** What the rules made of one event: the event to go on with, the rule that stopped it, or an error. */
export type RuleOutcome = { event: Message } | { stopped: string; index: number } | { error: string; rule: string };

export const NO_RULES: CompiledRules = { steps: [], credentialKeys: [] };

/** Rules as stored or sent: parsed (a ValidationError naming the rule's index and field), then compiled. */
export function parseRules(value: unknown, where = 'rules'): Rule[] {
  return checkPatterns(validate(Rules, value, where), where);
}

/**
 * Rules being saved or tried: each `matches` pattern compiles for RE2, else a ValidationError naming the
 * field (`<where>.<rule>.conditions.<condition>.pattern`) and the pattern. Kept out of the schema, so that
 * the functions that only read rules do not carry the engine's code.
 */
export function checkPatterns<R extends readonly Rule[]>(rules: R, where: string): R {
  rules.forEach((rule, i) => {
    if (rule.type !== 'drop-if') return;
    rule.conditions.forEach((condition, k) => {
      const problem = condition.op === 'matches' ? userRegexProblem(condition.pattern, { ignoreCase: condition.ignoreCase }) : undefined;
      if (problem) throw new ValidationError(`${where}.${i}.conditions.${k}.pattern: ${problem}`);
    });
  });
  return rules;
}

export function compileRules(rules: readonly Rule[]): CompiledRules {
  if (rules.length === 0) return NO_RULES;
  const credentialKeys = [...new Set(rules.flatMap((rule) => (rule.type === 'hash' ? [rule.saltCredential] : [])))];
  const meter = new MatchMeter();
  return { steps: rules.map((rule, i) => ({ label: ruleLabel(rule, i), run: stepOf(rule, meter) })), credentialKeys, meter };
}

/**
 * The rules over one event, in order: each rule gets what the one before made. Pure: the event given is
 * never changed (a rule that changes it works on copies of what it touches).
 */
export function applyRules(compiled: CompiledRules, event: Message, credentials: Readonly<Record<string, string>> = {}): RuleOutcome {
  let current = event;
  const { steps } = compiled;
  compiled.meter?.start();
  for (let index = 0; index < steps.length; index++) {
    const { label, run } = steps[index]!;
    const result = run(current, credentials);
    if (result === STOP) return { stopped: label, index };
    if (result instanceof RuleFailure) return { error: result.message, rule: label };
    current = result;
  }
  return { event: current };
}

/**
 * A dry run: how many of `events` each rule stops (the first rule that stops an event counts it), and how many
 * pass them all. A hash rule never stops an event, so the dry run hashes with a stand-in salt.
 */
export function dryRun(
  rules: readonly Rule[],
  events: readonly Message[],
): { rules: { index: number; label: string; type: string; stopped: number }[]; passed: number; errors: number } {
  const compiled = compileRules(rules);
  const salts = Object.fromEntries(compiled.credentialKeys.map((key) => [key, '-'.repeat(MIN_SALT_LENGTH)]));
  const stopped = new Map<number, number>();
  let passed = 0;
  let errors = 0;
  for (const event of events) {
    const outcome = applyRules(compiled, event, salts);
    if ('stopped' in outcome) stopped.set(outcome.index, (stopped.get(outcome.index) ?? 0) + 1);
    else if ('error' in outcome) errors++;
    else passed++;
  }
  return {
    rules: rules.map((rule, index) => ({ index, label: ruleLabel(rule, index), type: rule.type, stopped: stopped.get(index) ?? 0 })),
    passed,
    errors,
  };
}
