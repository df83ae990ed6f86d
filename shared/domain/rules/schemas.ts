import * as z from 'zod';
import { CREDENTIAL_KEY } from '../credentials/schemas';

/**
 * Rules of a connection (source → destination): an ordered list of declarative stages applied to each event
 * before the destination's transformation (docs/guides/tracking-plans-and-rules.md, "Rules per connection"). Parsed on save, so a stored list
 * always compiles (compile.ts).
 */
export const MAX_RULES = 50;
export const DEFAULT_SALT_CREDENTIAL = 'RULES_HASH_SALT';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** A dot path into an event (`properties.email`, `context.traits.address.city`, `products.0.sku`). */
export const RulePath = z
  .string({ error: 'must be a dot path such as properties.email' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine((p) => p.split('.').every((s) => s.length > 0), 'must be a dot path such as properties.email (no empty segment)')
  .refine((p) => p.split('.').every((s) => !FORBIDDEN_SEGMENTS.has(s)), 'must not name __proto__, prototype or constructor');

/** Allow-properties prunes these objects of an event; its paths must lie inside one of them. */
export const PROPERTY_CONTAINERS = ['context.traits', 'properties', 'traits'] as const;
const AllowPath = RulePath.refine(
  (p) => PROPERTY_CONTAINERS.some((c) => p.startsWith(`${c}.`)),
  'must lie inside properties, traits or context.traits, such as properties.plan',
);

const Paths = z.array(RulePath).min(1, 'must name at least one path').max(200, 'must name at most 200 paths');
const Scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' });
const not = { not: z.boolean().optional().describe('true: the condition holds when the test fails') };

/** A `matches` pattern: compiled by RE2 when a list is saved or tried (checkPatterns, rules.ts), so a stored one always reads back. */
const Pattern = z
  .string({ error: 'must be a regular expression' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .describe('a regular expression in JavaScript syntax, matched in linear time (RE2): no backreferences or lookaround');

export const Condition = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ path: RulePath, op: z.literal('equals'), value: Scalar, ...not }),
    z.strictObject({ path: RulePath, op: z.literal('in'), values: z.array(Scalar).min(1, 'must list at least one value').max(1000), ...not }),
    z.strictObject({ path: RulePath, op: z.literal('exists'), ...not }),
    z.strictObject({ path: RulePath, op: z.literal('matches'), pattern: Pattern, ignoreCase: z.boolean().optional(), ...not }),
    z.strictObject({ path: RulePath, op: z.enum(['lt', 'lte', 'gt', 'gte']), value: z.number({ error: 'must be a number' }), ...not }),
  ],
  { error: 'op must be one of equals, in, exists, matches, lt, lte, gt, gte' },
);
export type Condition = z.infer<typeof Condition>;

const Name = z
  .string()
  .regex(/^[A-Za-z0-9 _.-]{1,64}$/, 'must be 1 to 64 letters, digits, spaces, _ . or -')
  .optional()
  .describe('shown where the rule acted; defaults to its position and type, such as 2-drop-if');

const ConsentId = z.string().min(1, 'must not be empty').max(200);

export const Rule = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('sample'),
      name: Name,
      fraction: z.number({ error: 'must be a number from 0 to 1' }).min(0, 'must be at least 0').max(1, 'must be at most 1'),
    }),
    z.strictObject({
      type: z.literal('drop-if'),
      name: Name,
      match: z.enum(['all', 'any'], { error: 'must be all or any' }).default('all'),
      conditions: z.array(Condition).min(1, 'must list at least one condition').max(50, 'must list at most 50 conditions'),
    }),
    z.strictObject({
      type: z.literal('allow-properties'),
      name: Name,
      paths: z.array(AllowPath).min(1, 'must name at least one path').max(200, 'must name at most 200 paths'),
    }),
    z.strictObject({ type: z.literal('drop-properties'), name: Name, paths: Paths }),
    z.strictObject({
      type: z.literal('hash'),
      name: Name,
      paths: Paths,
      saltCredential: z
        .string()
        .regex(CREDENTIAL_KEY, 'must be a credential key: letters, digits and _, not starting with a digit')
        .default(DEFAULT_SALT_CREDENTIAL)
        .describe('the workspace credential whose value salts the hash'),
    }),
    z.strictObject({ type: z.literal('truncate-ip'), name: Name }),
    z.strictObject({
      type: z.literal('consent'),
      name: Name,
      consentIds: z.array(ConsentId).min(1, 'must list at least one consent id').max(100),
      resolutionStrategy: z.enum(['and', 'or'], { error: 'must be and or or' }).optional().describe("absent: the event's own, else and"),
      provider: z.string().min(1).max(64).optional().describe('only events of this consent provider are judged (oneTrust, ketch, iubenda, custom…)'),
      undecided: z
        .enum(['deliver', 'drop'], { error: 'must be deliver or drop' })
        .default('deliver')
        .describe('an event that neither allows nor denies the ids: delivered (as RudderStack does) or dropped'),
    }),
  ],
  { error: 'type must be one of sample, drop-if, allow-properties, drop-properties, hash, truncate-ip, consent' },
);
export type Rule = z.output<typeof Rule>;
export type RuleInput = z.input<typeof Rule>;

/** A list of rules as written (saved, created with a connection, dry-run); its patterns are checked by checkPatterns. */
export const Rules = z.array(Rule, { error: 'must be a list of rules' }).max(MAX_RULES, `must hold at most ${MAX_RULES} rules`);

/** The body that replaces a connection's rules. */
export const RulesPut = z.strictObject({ rules: Rules });

/** The label a rule's stops are counted and shown under. */
export const ruleLabel = (rule: Pick<Rule, 'type' | 'name'>, index: number): string => rule.name ?? `${index + 1}-${rule.type}`;
