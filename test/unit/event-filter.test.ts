import { matchesPattern } from '../../infra/local/event-filter';

const record = { eventName: 'INSERT', dynamodb: { NewImage: { sk: { S: 'REG#1' }, n: { N: '3' } } } };

describe('Lambda event filter patterns', () => {
  it('match value lists, prefixes, exists and anything-but in nested objects', () => {
    expect(matchesPattern({ eventName: ['INSERT', 'MODIFY'] }, record)).toBe(true);
    expect(matchesPattern({ eventName: ['REMOVE'] }, record)).toBe(false);
    expect(matchesPattern({ dynamodb: { NewImage: { sk: { S: [{ prefix: 'REG#' }] } } } }, record)).toBe(true);
    expect(matchesPattern({ dynamodb: { NewImage: { sk: { S: [{ prefix: 'SRC#' }] } } } }, record)).toBe(false);
    expect(matchesPattern({ dynamodb: { OldImage: [{ exists: false }] } }, record)).toBe(true);
    expect(matchesPattern({ dynamodb: { NewImage: [{ exists: true }] } }, record)).toBe(true);
    expect(matchesPattern({ eventName: [{ 'anything-but': ['REMOVE'] }] }, record)).toBe(true);
    expect(matchesPattern({ eventName: [{ 'anything-but': 'INSERT' }] }, record)).toBe(false);
  });

  it('match everything with an empty pattern and nothing when a key is absent', () => {
    expect(matchesPattern({}, record)).toBe(true);
    expect(matchesPattern({ missing: ['x'] }, record)).toBe(false);
    expect(matchesPattern({ dynamodb: { Keys: { pk: { S: ['x'] } } } }, record)).toBe(false);
  });
});
