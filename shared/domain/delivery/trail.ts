/**
 * A batch's trail: the outcome of each of its slots (one output of one event), in order, kept in the batch's
 * own item and written with its position, so that what happened to every event of a part at a destination
 * can be read back (the audit) at no extra write. Run-length encoded: `26d,1r,23d` is 26 events delivered,
 * one parked, 23 delivered: a few bytes for a whole batch. Codes: `d` delivered, `a` aborted, `r` parked for a
 * retry, `f` filtered by the transformation, `s` suppressed, `u` a duplicate of an event
 * its source accepted before (never sent); `D`, `A`, `R` the same for a further output of
 * the event before (a transformation may fan one event out).
 */
export type SlotState = 'delivered' | 'aborted' | 'retrying' | 'filtered' | 'suppressed' | 'duplicate';

const CODES: Record<SlotState, string> = { delivered: 'd', aborted: 'a', retrying: 'r', filtered: 'f', suppressed: 's', duplicate: 'u' };
const STATES = new Map<string, SlotState>(Object.entries(CODES).map(([state, code]) => [code, state as SlotState]));

/** One slot read back: the event it belongs to (its index in the part), which output, and what became of it. */
interface TrailSlot {
  event: number;
  output: number;
  state: SlotState;
}

export class OutcomeTrail {
  private readonly runs: [string, number][] = [];

  /** A trail to go on with. */
  constructor(encoded = '') {
    for (const token of encoded.split(',').filter(Boolean)) {
      const match = /^(\d+)([dafrsuDAR])$/.exec(token);
      if (!match) throw new Error(`not a trail token: ${token}`);
      this.push(match[2]!, Number(match[1]));
    }
  }

  private push(code: string, n: number): void {
    const last = this.runs.at(-1);
    if (last && last[0] === code) last[1] += n;
    else this.runs.push([code, n]);
  }

  /** The outcome of the next slot: the first output of its event (`output` 0), or a further one. */
  add(state: SlotState, output: number): void {
    const code = CODES[state];
    this.push(output > 0 && 'dar'.includes(code) ? code.toUpperCase() : code, 1);
  }

  encode(): string {
    return this.runs.map(([code, n]) => `${n}${code}`).join(',');
  }

  /** Every slot, with the event it belongs to. */
  slots(): TrailSlot[] {
    const slots: TrailSlot[] = [];
    let event = -1;
    let output = 0;
    for (const [code, n] of this.runs) {
      for (let i = 0; i < n; i++) {
        const further = code !== code.toLowerCase();
        if (further) output++;
        else {
          event++;
          output = 0;
        }
        slots.push({ event: Math.max(event, 0), output, state: STATES.get(code.toLowerCase())! });
      }
    }
    return slots;
  }
}
