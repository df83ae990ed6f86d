import { Circuit, FAILURE_STREAK } from '../../shared/domain/delivery/circuit';

/** The per-destination circuit: opened by a streak of answered failures or by one that got no answer. */
describe('a destination circuit', () => {
  let clock = 0;
  const make = () =>
    new Circuit(
      () => 1000,
      () => clock,
    );
  const answered503 = { status: 503, error: 'destination answered 503', answered: true };
  const timedOut = { status: 504, error: 'no answer within 10000 ms', answered: false };
  beforeEach(() => (clock = 0));

  it('stays closed through answered failures short of a streak, and a success resets the streak', () => {
    const circuit = make();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < FAILURE_STREAK - 1; i++) circuit.failed('d', answered503);
      expect(circuit.admit('d')).toEqual({ send: true, probe: false });
      circuit.succeeded('d');
    }
    expect(circuit.isOpen('d')).toBe(false);
  });

  it('opens after a streak of answered failures, and at once on a failure without an answer', () => {
    const streak = make();
    for (let i = 0; i < FAILURE_STREAK; i++) streak.failed('d', answered503);
    expect(streak.admit('d')).toEqual({
      send: false,
      status: 503,
      error: 'not sent: the destination is failing (destination answered 503)',
    });
    const hang = make();
    hang.failed('d', timedOut);
    expect(hang.admit('d')).toMatchObject({ send: false, status: 504 });
    expect(hang.admit('other')).toEqual({ send: true, probe: false });
  });

  it('lets one probe through after the open period; a failed probe opens it again, a success closes it', () => {
    const circuit = make();
    circuit.failed('d', timedOut);
    clock = 999;
    expect(circuit.admit('d').send).toBe(false);
    clock = 1000;
    expect(circuit.admit('d')).toEqual({ send: true, probe: true });
    // One probe at a time: the others wait for its verdict.
    expect(circuit.admit('d').send).toBe(false);
    circuit.failed('d', answered503);
    clock = 1999;
    expect(circuit.admit('d').send).toBe(false);
    clock = 2000;
    expect(circuit.admit('d')).toEqual({ send: true, probe: true });
    circuit.succeeded('d');
    expect(circuit.admit('d')).toEqual({ send: true, probe: false });
    expect(circuit.isOpen('d')).toBe(false);
  });
});
