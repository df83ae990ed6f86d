import { createHash } from 'node:crypto';
import type { Message } from '../../destinations/types';
import { MIN_SALT_LENGTH } from '../credentials/schemas';
import { getAt, pick, REMOVE, segmentsOf, treeOf, updateAt, type Segments } from './paths';
import { compileUserRegex, UserRegexRefused, type MatchMeter } from '../user-regex';
import { PROPERTY_CONTAINERS, type Condition, type Rule } from './schemas';

/** What one rule makes of an event: the event (maybe changed), STOP, or an error that aborts the event. */
export const STOP: unique symbol = Symbol('stop');
export class RuleFailure {
  constructor(readonly message: string) {}
}
export type StepResult = Message | typeof STOP | RuleFailure;
export type Step = (event: Message, credentials: Readonly<Record<string, string>>) => StepResult;

/** A number in [0, 1) drawn from a text: FNV-1a, then murmur3's finaliser so that near texts spread. */
export function unitOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** SHA-256 of the salt followed by the value's text, in hex. */
export const hashValue = (salt: string, value: unknown): string =>
  createHash('sha256')
    .update(salt)
    .update(typeof value === 'string' ? value : JSON.stringify(value))
    .digest('hex');

const numberOf = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
};

function testOf(condition: Condition, meter: MatchMeter): (value: unknown) => boolean {
  switch (condition.op) {
    case 'equals': {
      const expected = condition.value;
      return (value) => value === expected;
    }
    case 'in': {
      const set = new Set<unknown>(condition.values);
      return (value) => set.has(value);
    }
    case 'exists':
      return (value) => value !== undefined && value !== null;
    case 'matches': {
      // A rule matches a long value on its first characters (at most MAX_MATCHED_CHARS, user-regex.ts, fewer for a
      // large pattern): the bound every user pattern has. An event whose patterns have done all the matching one
      // event may is noted on the meter, and the drop-if step fails it (stepOf).
      const regex = compileUserRegex(condition.pattern, { ignoreCase: condition.ignoreCase, meter });
      return (value) => (typeof value === 'string' || typeof value === 'number') && regex.test(String(value).slice(0, regex.maxChars));
    }
    default: {
      const bound = condition.value;
      const compare = { lt: (n: number) => n < bound, lte: (n: number) => n <= bound, gt: (n: number) => n > bound, gte: (n: number) => n >= bound }[
        condition.op
      ];
      return (value) => {
        const n = numberOf(value);
        return n !== undefined && compare(n);
      };
    }
  }
}

function predicateOf(condition: Condition, meter: MatchMeter): (event: Message) => boolean {
  const segments = segmentsOf(condition.path);
  const test = testOf(condition, meter);
  return condition.not ? (event) => !test(getAt(event, segments)) : (event) => test(getAt(event, segments));
}

/** Zeroes the host part of an address: IPv4 to its /24, IPv6 to its /48; anything else is removed. */
export function truncateIp(value: unknown): unknown {
  if (typeof value !== 'string') return value === undefined ? value : REMOVE;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(value);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0`;
  const mapped = /^(::ffff:)(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}$/i.exec(value);
  if (mapped) return `${mapped[1]}${mapped[2]}.0`;
  if (!/^[0-9a-f:]+$/i.test(value) || !value.includes(':')) return REMOVE;
  const [head = '', tail] = value.split('::');
  const groups = head === '' ? [] : head.split(':');
  if (tail === undefined && groups.length !== 8) return REMOVE;
  const kept = [...groups, '0', '0', '0'].slice(0, 3).map((g) => g.replace(/^0+(?=.)/, ''));
  return `${kept.join(':')}::`;
}

const strings = (value: unknown): Set<string> => {
  if (Array.isArray(value)) return new Set(value.filter((v): v is string => typeof v === 'string' && v !== ''));
  // Older SDKs sent allowed ids as an object of id → name.
  if (typeof value === 'object' && value !== null) return new Set(Object.keys(value));
  return new Set();
};

function consentStep(rule: Extract<Rule, { type: 'consent' }>): Step {
  const ids = rule.consentIds;
  const undecided = rule.undecided === 'drop' ? STOP : undefined;
  return (event) => {
    const info = getAt(event, ['context', 'consentManagement']) as Record<string, unknown> | undefined;
    if (typeof info !== 'object' || info === null) return undecided ?? event;
    if (rule.provider !== undefined && typeof info.provider === 'string' && info.provider !== '' && info.provider !== rule.provider) return event;
    const denied = strings(info.deniedConsentIds);
    const strategy = rule.resolutionStrategy ?? (info.resolutionStrategy === 'or' ? 'or' : 'and');
    if (strategy === 'and' ? ids.some((id) => denied.has(id)) : ids.every((id) => denied.has(id))) return STOP;
    if (!undecided) return event;
    const allowed = strings(info.allowedConsentIds);
    return (strategy === 'and' ? ids.every((id) => allowed.has(id)) : ids.some((id) => allowed.has(id))) ? event : STOP;
  };
}

function allowStep(paths: string[]): Step {
  const containers = PROPERTY_CONTAINERS.map((container) => {
    const prefix = `${container}.`;
    const below = paths.filter((p) => p.startsWith(prefix)).map((p) => segmentsOf(p.slice(prefix.length)));
    return { segments: segmentsOf(container), tree: below.length > 0 ? treeOf(below) : undefined };
  }).filter((c) => c.tree !== undefined);
  return (event) => {
    let out = event;
    for (const { segments, tree } of containers)
      out = updateAt(out, segments, (value) => (typeof value === 'object' && value !== null ? pick(value, tree!) : value));
    return out;
  };
}

function hashStep(rule: Extract<Rule, { type: 'hash' }>): Step {
  const all = rule.paths.map(segmentsOf);
  const key = rule.saltCredential;
  return (event, credentials) => {
    const salt = credentials[key];
    if (salt === undefined) return new RuleFailure(`hash rule: the credential ${key} (its salt) is not set`);
    if (salt.length < MIN_SALT_LENGTH) return new RuleFailure(`hash rule: the credential ${key} (its salt) is shorter than ${MIN_SALT_LENGTH} characters`);
    let out = event;
    for (const segments of all) out = updateAt(out, segments, (value) => (value === undefined || value === null ? value : hashValue(salt, value)));
    return out;
  };
}

const IP_PATHS: Segments[] = [segmentsOf('context.ip'), segmentsOf('request_ip')];

/**
 * One compiled step per rule: paths split, regexes built and sets made once. Its patterns match within one event's
 * work (`meter`, its rules' own, started for each event).
 */
export function stepOf(rule: Rule, meter: MatchMeter): Step {
  switch (rule.type) {
    case 'sample': {
      const fraction = rule.fraction;
      return (event) => (unitOf(String(event.messageId ?? '')) < fraction ? event : STOP);
    }
    case 'drop-if': {
      let predicates: ((event: Message) => boolean)[];
      try {
        predicates = rule.conditions.map((condition) => predicateOf(condition, meter));
      } catch (error) {
        // A pattern stored before RE2 refused it is never run: every event the rule sees fails with why.
        if (!(error instanceof UserRegexRefused)) throw error;
        const failure = new RuleFailure(`drop-if rule: the pattern ${error.problem}`);
        return () => failure;
      }
      const holds = rule.match === 'any' ? (event: Message) => predicates.some((p) => p(event)) : (event: Message) => predicates.every((p) => p(event));
      return (event) => {
        const stop = holds(event);
        // Never a verdict on a value its pattern did not read: the event fails, saying why (a rule before this one
        // would have failed it already).
        if (meter.unchecked) return new RuleFailure(`drop-if rule: a value ${meter.unchecked.problem}`);
        return stop ? STOP : event;
      };
    }
    case 'allow-properties':
      return allowStep(rule.paths);
    case 'drop-properties': {
      const all = rule.paths.map(segmentsOf);
      return (event) => all.reduce((out, segments) => updateAt(out, segments, () => REMOVE), event);
    }
    case 'hash':
      return hashStep(rule);
    case 'truncate-ip':
      return (event) => IP_PATHS.reduce((out, segments) => updateAt(out, segments, truncateIp), event);
    case 'consent':
      return consentStep(rule);
  }
}
