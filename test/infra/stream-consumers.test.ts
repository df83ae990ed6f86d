import { STREAM_CONSUMERS } from '../../shared/contract/functions';
import { expectStreamConsumerWired } from './stream-consumer-assertions';
import { synthStage } from './synth';

// The manifest has no consumer yet; a stand-in proves that adding one is enough to get it deployed.
jest.mock('../../shared/contract/functions', () => ({
  ...jest.requireActual('../../shared/contract/functions'),
  STREAM_CONSUMERS: {
    regulationProcessor: {
      entry: 'functions/data-meta/handler.ts',
      filter: { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['regulation'] } } } },
      batchSize: 25,
      retryAttempts: 3,
    },
  },
}));

test('a STREAM_CONSUMERS entry becomes a filtered, retried stream consumer with an on-failure queue', () => {
  const dev = synthStage('dev');
  const entries = Object.entries(STREAM_CONSUMERS);
  expect(entries).toHaveLength(1);
  for (const [name, consumer] of entries) expectStreamConsumerWired(dev.stacks, dev.planes.control, name, consumer);
}, 120_000);
