import { applyRules } from '../shared/domain/rules/rules';
import { benchRules } from './support/bench-rules';

// The rules stage on its own: five rules of each kind that matters for cost (consent, a drop-if with a
// regular expression, drop-properties, hash, truncate-ip), compiled once, over varied track events, on one
// core. Prints `rules events/s/core: N`.

const rules = benchRules('properties.total');
const credentials = { SALT: 'bench-salt-0123456789' };

const events = Array.from({ length: 1000 }, (_, i) => ({
  messageId: `m-${i}`,
  type: 'track',
  event: i % 50 === 0 ? 'Heartbeat' : 'Order Completed',
  userId: `user-${i % 97}`,
  properties: { email: `user${i}@example.com`, total: (i * 37) % 12_000, plan: 'pro', address: { city: 'Lyon', street: `${i} rue X` } },
  context: {
    ip: `203.0.113.${i % 250}`,
    traits: { email: `user${i}@example.com`, phone: '+33100000000' },
    consentManagement: { provider: 'oneTrust', allowedConsentIds: ['C0001', 'C0002'], deniedConsentIds: i % 10 === 0 ? ['C0004'] : [] },
  },
}));

function pass(): number {
  let kept = 0;
  for (const event of events) if ('event' in applyRules(rules, event, credentials)) kept++;
  return kept;
}

for (let i = 0; i < 50; i++) pass();
const seconds = 2;
const start = process.hrtime.bigint();
let done = 0;
while (Number(process.hrtime.bigint() - start) < seconds * 1e9) {
  pass();
  done += events.length;
}
const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`rules: 5 rules, ${done} events in ${elapsed.toFixed(2)} s`);
console.log(`rules events/s/core: ${Math.round(done / elapsed)}`);
