import { compileRules, parseRules } from '../../shared/domain/rules/rules';

/**
 * The rules the benches run: five of the kinds that cost most (consent, a drop-if with a regular expression,
 * drop-properties, hash, truncate-ip). `amount` is the numeric property the drop-if compares, as each bench's
 * events name it.
 */
export const benchRules = (amount: string) =>
  compileRules(
    parseRules([
      { type: 'consent', consentIds: ['C0002', 'C0004'], resolutionStrategy: 'and' },
      {
        type: 'drop-if',
        match: 'any',
        conditions: [
          { path: 'properties.email', op: 'matches', pattern: '@internal\\.example$', ignoreCase: true },
          { path: amount, op: 'gt', value: 10_000 },
          { path: 'event', op: 'in', values: ['Debug', 'Heartbeat'] },
        ],
      },
      { type: 'drop-properties', paths: ['properties.address.street', 'context.traits.phone'] },
      { type: 'hash', paths: ['properties.email', 'context.traits.email'], saltCredential: 'SALT' },
      { type: 'truncate-ip' },
    ]),
  );
