import { OutcomeTrail } from '../../shared/domain/delivery/trail';

describe("a batch's outcome trail", () => {
  it('keeps one outcome per slot, run-length encoded, and reads each back with its event', () => {
    const trail = new OutcomeTrail();
    for (const state of ['delivered', 'delivered', 'retrying', 'delivered', 'filtered', 'suppressed', 'aborted'] as const) trail.add(state, 0);
    expect(trail.encode()).toBe('2d,1r,1d,1f,1s,1a');
    expect(new OutcomeTrail(trail.encode()).slots().map((s) => [s.event, s.state])).toEqual([
      [0, 'delivered'],
      [1, 'delivered'],
      [2, 'retrying'],
      [3, 'delivered'],
      [4, 'filtered'],
      [5, 'suppressed'],
      [6, 'aborted'],
    ]);
  });

  it("tells an event's further outputs (a transformation's fan-out) from the next event", () => {
    const trail = new OutcomeTrail('1d');
    trail.add('delivered', 0);
    trail.add('delivered', 1);
    trail.add('retrying', 2);
    trail.add('delivered', 0);
    expect(trail.encode()).toBe('2d,1D,1R,1d');
    expect(trail.slots()).toEqual([
      { event: 0, output: 0, state: 'delivered' },
      { event: 1, output: 0, state: 'delivered' },
      { event: 1, output: 1, state: 'delivered' },
      { event: 1, output: 2, state: 'retrying' },
      { event: 2, output: 0, state: 'delivered' },
    ]);
  });

  it('refuses what is not a trail', () => {
    expect(() => new OutcomeTrail('3x')).toThrow('not a trail token: 3x');
  });
});
