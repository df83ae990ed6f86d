import type { Message } from '../../destinations';
import { destinationType } from '../../destinations';
import type { Destination } from '../catalog/schemas';
import type { PartEvents } from './batch-delivery';
import type { BatchRun } from './batch-run';
import type { BatchChange } from './ports';
import type { DeliveryRound } from './round';
import { rulesThenTransform } from './rules-stage';
import { prepare } from './sender';
import { slotsOf, type Slot } from './units';
import type { EventOutcome } from './user-transform';

/** A batch in a run of several: its own run, its slots, the secrets its transformation read. */
export interface Member {
  run: BatchRun;
  part: PartEvents;
  slots: Slot[];
  secrets: string[];
  /** Its batch was taken over by another run: nothing more of it is sent or written here. */
  lost?: boolean;
  /** Written finished in the run after its last send (its change): counted with the run. */
  finished?: BatchChange;
}

/** At most this many events go through one sandbox invocation of a run of several batches (a larger batch goes alone). */
const TRANSFORM_EVENTS = 100;

/** Members in consecutive groups of at most TRANSFORM_EVENTS pending events, for one invocation each. */
function transformGroups(members: Member[], sizeOf: (m: Member) => number): Member[][] {
  const groups: Member[][] = [];
  let size = Infinity;
  for (const member of members) {
    const n = sizeOf(member);
    if (size + n > TRANSFORM_EVENTS) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(member);
    size += n;
  }
  return groups;
}

/**
 * The rules and the published transformation over the members' pending events: one sandbox invocation for
 * up to TRANSFORM_EVENTS events of several batches (a batch larger than that alone), its outcomes handed
 * back to each batch. Suppressed users' events and duplicates go nowhere, not even into the rules or the
 * transformation; they keep their positions.
 */
export async function transformAll(
  members: Member[],
  destination: Destination,
  round: DeliveryRound,
  named: Record<string, string>,
  /** Each invocation is progress: a submitter waiting for the run does not take a long one for a stall. */
  progressed: () => void,
): Promise<void> {
  const { workspaceId, sourceId } = members[0]!.run.guard.ref;
  const pendingOf = (m: Member) => m.part.events.slice(m.run.position.progress);
  const liveOf = (m: Member) =>
    pendingOf(m).map((_, i) => !m.part.suppressed.has(m.run.position.progress + i) && !m.part.duplicates?.has(m.run.position.progress + i));
  for (const group of transformGroups(members, (m) => pendingOf(m).length)) {
    const inputs = group.map((m) => pendingOf(m).filter((_, i) => liveOf(m)[i]));
    const abort = group[0]!.part.abort;
    const transformed = abort
      ? { outcomes: inputs.flat().map((): EventOutcome => ({ error: abort })), secrets: [], seen: inputs.flat() }
      : await rulesThenTransform(
          await round.rulesOf(workspaceId, sourceId, destination.id),
          await round.published(workspaceId, destination.transformationId),
          workspaceId,
          destination,
          inputs.flat(),
          () => round.credentialsOf(workspaceId),
        );
    let offset = 0;
    for (const [k, member] of group.entries()) {
      const own = {
        outcomes: transformed.outcomes.slice(offset, offset + inputs[k]!.length),
        seen: transformed.seen.slice(offset, offset + inputs[k]!.length),
      };
      offset += inputs[k]!.length;
      await slotsFor(member, own, transformed.secrets, liveOf(member), pendingOf(member), round, named);
    }
    progressed();
  }
}

/** A member's slots from its share of the transformation, keyed (user, messageId) by each event as the rules left it. */
async function slotsFor(
  member: Member,
  transformed: { outcomes: EventOutcome[]; seen: Message[] },
  secrets: string[],
  live: boolean[],
  pending: Message[],
  round: DeliveryRound,
  /** The credentials the destination's configuration names, by name. */
  named: Record<string, string>,
): Promise<void> {
  const { run } = member;
  member.secrets = [...secrets, ...Object.values(named)];
  if (run.context) run.context.secrets = member.secrets;
  // A failure names the credentials in place of their values, for a retry to put back (redact.ts).
  if (run.context && member.secrets.length > 0)
    run.context.named = { ...(secrets.length > 0 && (await round.credentialsOf(run.guard.ref.workspaceId)).named), ...named };
  let next = 0;
  const outcomes = live.map((isLive): EventOutcome => (isLive ? transformed.outcomes[next++]! : { outputs: [] }));
  next = 0;
  const keyed = live.map((isLive, i) => (isLive ? transformed.seen[next++]! : pending[i]!));
  const slots = slotsOf(destinationType(run.destination.type), keyed, outcomes, run.position, (message) => prepare(run.destination, message));
  const duplicates = member.part.duplicates;
  member.slots = duplicates?.size ? slots.map((slot) => (slot.kind === 'none' && duplicates.has(slot.index) ? { ...slot, kind: 'duplicate' } : slot)) : slots;
}
