import { SCHEDULED_FUNCTIONS, STREAM_CONSUMERS } from '../../shared/contract/functions';
import { expectStreamConsumerWired } from '../support/stream-consumer-assertions';
import { logicalId, resourcesOf, synthStage } from '../support/synth';

const dev = synthStage('dev');

test('every STREAM_CONSUMERS entry becomes a filtered, retried stream consumer with an on-failure queue', () => {
  const entries = Object.entries(STREAM_CONSUMERS);
  expect(entries.length).toBeGreaterThan(0);
  expect(STREAM_CONSUMERS.schemaCapture?.batchingWindowSeconds).toBeGreaterThan(0);
  for (const [name, consumer] of entries) expectStreamConsumerWired(dev.stacks, dev.planes.control, name, consumer);
}, 120_000);

test('every SCHEDULED_FUNCTIONS entry runs on an EventBridge rate of at least a minute, with table access', () => {
  const rules = Object.values(resourcesOf(dev.planes.control, 'AWS::Events::Rule'));
  for (const [name, scheduled] of Object.entries(SCHEDULED_FUNCTIONS)) {
    const fn = dev.stacks.control.scheduledFunctions.functions[name]!;
    const fnId = logicalId(fn);
    const rule = rules.find((r) => JSON.stringify(r.Properties!.Targets).includes(fnId));
    const minutes = Math.max(1, Math.round(scheduled.everySeconds / 60));
    expect(rule?.Properties).toMatchObject({ ScheduleExpression: `rate(${minutes} minute${minutes === 1 ? '' : 's'})`, State: 'ENABLED' });
    const roleId = logicalId(fn.role!);
    const policies = Object.values(resourcesOf(dev.planes.control, 'AWS::IAM::Policy')).filter(
      (p) => JSON.stringify(p.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]),
    );
    const actions = JSON.stringify(policies.map((p) => p.Properties!.PolicyDocument));
    for (const action of ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']) expect(actions).toContain(action);
  }
}, 120_000);
