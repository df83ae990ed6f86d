import { ValidationError } from '../../shared/domain/errors';
import { keys } from '../../shared/persistence/keys';

/** The backstop of every input bound: no key DynamoDB would refuse ever reaches the store. */
describe('key builders', () => {
  it('refuse a sort key over 1,024 bytes and a partition key over 2,048 bytes, counting UTF-8 bytes', () => {
    expect(() => keys.suppression('ws', 'x'.repeat(1015))).not.toThrow();
    expect(() => keys.suppression('ws', 'x'.repeat(1016))).toThrow(
      new ValidationError('an identifier in this request is too long: the suppression key would exceed 1024 bytes'),
    );
    expect(() => keys.suppression('ws', '\u{1F600}'.repeat(254))).toThrow(ValidationError);
    expect(() => keys.writeKey('k'.repeat(2039))).not.toThrow();
    expect(() => keys.writeKey('k'.repeat(2040))).toThrow('the writeKey key would exceed 2048 bytes');
    expect(() => keys.versionLookup('ws', 'v'.repeat(1025))).toThrow('the versionLookup key would exceed 1024 bytes');
    expect(() => keys.revisionPartition('transformation', 'ws', 'i'.repeat(2048))).toThrow('the revisionPartition key would exceed 2048 bytes');
  });

  it('leave constants and keys within the limits as they were', () => {
    expect(keys.suppression('ws', 'u1')).toEqual({ pk: expect.stringMatching(/^WS#ws#SUPPRESS#\d+$/), sk: 'SUPPRESS#u1' });
    expect(keys.sourcePrefix).toBe('SOURCE#');
    expect(keys.schemaSketchPrefixes).toEqual(['MODELSKETCH#', 'VERSIONSKETCH#']);
  });
});
