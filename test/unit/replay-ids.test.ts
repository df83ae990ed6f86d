import { replayRequestId, storedRequestId } from '../../shared/domain/delivery/records';
import { tallyOf } from '../../shared/domain/replays/replay-runner';

describe("a replay's batches", () => {
  it('name the stored request they deliver, and sort after every ingestion request id', () => {
    const stored = '01KBXQ2M3N4P5Q6R7S8T9V0W1X';
    const replayed = replayRequestId('01KBXQAAAAAAAAAAAAAAAAAAAA', stored);
    expect(storedRequestId(replayed)).toBe(stored);
    expect(storedRequestId(stored)).toBe(stored);
    expect(replayed > '7ZZZZZZZZZZZZZZZZZZZZZZZZZ~').toBe(true);
  });

  it("count a finished batch's outcomes from its trail, each output once", () => {
    expect(tallyOf('2d,1D,1s,1r,1a,1f,1u', 7)).toEqual({
      parts: 1,
      events: 7,
      delivered: 3,
      suppressed: 1,
      duplicate: 1,
      retrying: 1,
      aborted: 1,
      filtered: 1,
    });
    expect(tallyOf(undefined, 4)).toMatchObject({ events: 4, delivered: 0 });
  });
});
