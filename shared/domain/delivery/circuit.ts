/**
 * One circuit per destination, per process (the stream consumer and the scheduler share it where they share
 * a process). A destination that does not answer at all (time-out, refused connection) is opened at once: each
 * further send would cost a whole time-out. One that answers with failures (5xx, 429, 408) is opened only after
 * a streak of them, so a destination that fails some requests is still sent to at the rate it accepts.
 *
 * While open, nothing is sent: events are parked as they come. After `openMs`, one probe at a time may go
 * (half-open): an answer in 2xx closes the circuit, a failure opens it for another period.
 */
type CircuitVerdict = { send: true; probe: boolean } | { send: false; status: number; error: string };

export const FAILURE_STREAK = 5;

interface State {
  failures: number;
  openUntil?: number;
  probing?: boolean;
  status: number;
  error: string;
}

export class Circuit {
  private readonly states = new Map<string, State>();

  constructor(
    private readonly openMs: () => number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** May a request go to this destination now? A `probe` must report back through `succeeded` or `failed`. */
  admit(destinationId: string): CircuitVerdict {
    const state = this.states.get(destinationId);
    if (state?.openUntil === undefined) return { send: true, probe: false };
    if (this.now() < state.openUntil || state.probing) {
      return { send: false, status: state.status, error: `not sent: the destination is failing (${state.error})` };
    }
    state.probing = true;
    return { send: true, probe: true };
  }

  /** Only a probe lets a waiting send through on the stream path; the scheduler probes. */
  isOpen(destinationId: string): boolean {
    return this.states.get(destinationId)?.openUntil !== undefined;
  }

  succeeded(destinationId: string): void {
    this.states.delete(destinationId);
  }

  /** `answered`: the destination answered (with a failure); otherwise it did not answer at all. */
  failed(destinationId: string, failure: { status: number; error: string; answered: boolean }): void {
    const state = this.states.get(destinationId) ?? { failures: 0, status: failure.status, error: failure.error };
    state.failures++;
    state.status = failure.status;
    state.error = failure.error;
    state.probing = false;
    if (!failure.answered || state.failures >= FAILURE_STREAK || state.openUntil !== undefined) state.openUntil = this.now() + this.openMs();
    this.states.set(destinationId, state);
  }

  /** A probe that ended without a verdict (nothing was sent after all) lets the next one go. */
  release(destinationId: string): void {
    const state = this.states.get(destinationId);
    if (state) state.probing = false;
  }
}
