import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import type { BatchChange, FinishingBatch } from '../domain/delivery/ports';
import type { BatchGuard, GuardChange } from '../domain/delivery/records';
import { batchUpdate, finishedTogetherStats } from './delivery-items';
import { encodeListed, MAX_LISTED_BYTES, type DeliveryRuns } from './delivery-runs';
import { finishedTogetherExtras } from './failure-items';
import { refusedItems, updateIf, type TableClient } from './table-client';

/** A batch no item holds yet, nothing of it to write beside it: its run's record may list it finished. */
const listable = ({ guard, change, written }: FinishingBatch) =>
  !written && guard.listable === true && !guard.established && guard.prior.kind === 'absent' && change.parks.length === 0 && !change.failures?.length;
const refOf = ({ guard }: FinishingBatch) => ({ requestId: guard.ref.requestId, part: guard.ref.part });

/** Batches finished in one transaction, beside the destination's counters and a few hours' funnels. */
const FINISHED_PER_WRITE = 90;

/**
 * Finishing batches of one source at one destination. Together, as a run (delivery-runs.ts): each written
 * finished on its own, a plain write, and one transaction counts them all with the run's record; a batch no
 * item holds yet (`listable`) is not written at all but listed in that record. A batch that parks or keeps
 * failures (items of its own beside it), or one alone, is finished by writeBatch; should the run have been
 * ended as abandoned, the batches still their owner's are finished in transactions of their items.
 */
export class BatchFinishes {
  constructor(
    private readonly store: TableClient,
    private readonly runs: DeliveryRuns,
    private readonly writeBatch: (guard: BatchGuard, change: BatchChange) => Promise<GuardChange | undefined>,
  ) {}

  /**
   * Batches of one source at one destination finished together, as the run `run` (some may be written finished
   * in it already) or a new one: each batch written finished (or, listable, listed), then one transaction of
   * the run's record, the destination's counters and each hour's funnel. A batch that parks or keeps failures
   * (items of its own beside it), or one alone, is finished by writeBatch. A batch another owner took
   * meanwhile is left out.
   */
  async finish(finishing: FinishingBatch[], run?: string): Promise<(GuardChange | undefined)[]> {
    const results: (GuardChange | undefined)[] = finishing.map(() => undefined);
    const together: number[] = [];
    for (const [i, { guard, change, written }] of finishing.entries()) {
      // One written finished in the run already is counted with the others, or alone in a transaction of its own.
      if (written || (finishing.length > 1 && change.parks.length === 0 && !change.failures?.length)) together.push(i);
      else results[i] = await this.writeBatch(guard, change);
    }
    // One left (the others parked, kept failures or were lost): its own transaction (one written finished too).
    if (together.length < 2) return this.finishTogether(finishing, together, results);
    const runId = run ?? ulid();
    // Batches no item holds: the run's record lists them (up to what it holds), in place of a write each.
    let listing = together.filter((i) => listable(finishing[i]!));
    let listed =
      listing.length > 0
        ? encodeListed(listing.map((i) => ({ ...refOf(finishing[i]!), position: finishing[i]!.change.position, trail: finishing[i]!.change.trail })))
        : undefined;
    if (listed && listed.byteLength > MAX_LISTED_BYTES) [listing, listed] = [[], undefined];
    const written = await Promise.all(
      together.map((i) => finishing[i]!.written || listing.includes(i) || this.writeFinishing(finishing[i]!.guard, finishing[i]!.change, runId)),
    );
    const counted = together.filter((_, k) => written[k]);
    if (counted.length === 0) return results;
    const finished = counted.map((i) => ({ ref: finishing[i]!.guard.ref, change: finishing[i]!.change }));
    const { workspaceId, destinationId } = finished[0]!.ref;
    try {
      await this.store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            this.runs.done(
              { workspaceId, destinationId, runId },
              { at: new Date().toISOString(), samples: finished.flatMap(({ change }) => change.finish?.samples ?? []), listed },
            ),
            finishedTogetherStats(this.store.table, finished),
            ...finishedTogetherExtras(this.store.table, finished),
          ],
        }),
      );
      for (const i of counted) results[i] = { established: true };
      return results;
    } catch (error) {
      if (refusedItems(error)?.[0] !== 'ConditionalCheckFailed') throw error;
    }
    // The run was ended as abandoned (a takeover of one of its batches): what is still this owner's is finished
    // in transactions of their items, each under its owner's condition, so that what was taken over is left out
    // (a listed batch was never written: whoever took it over wrote it first, if anyone did).
    const own = finishing.map((entry, i) => (counted.includes(i) && !listing.includes(i) ? { ...entry, guard: { ...entry.guard, established: true } } : entry));
    return this.finishTogether(own, counted, results);
  }

  /** A batch written finished in a run (a plain write): false when it is no longer the guard's. */
  async writeFinishing(guard: BatchGuard, change: BatchChange, runId: string): Promise<boolean> {
    return updateIf(this.store, batchUpdate(this.store.table, guard, change, runId).Update!);
  }

  /** Batches finished in transactions of their items, the destination's counters and each hour's funnel. */
  private async finishTogether(finishing: FinishingBatch[], together: number[], results: (GuardChange | undefined)[]): Promise<(GuardChange | undefined)[]> {
    for (let k = 0; k < together.length; k += FINISHED_PER_WRITE) {
      let group = together.slice(k, k + FINISHED_PER_WRITE);
      while (group.length > 0) {
        const entries = group.map((i) => finishing[i]!);
        const finished = entries.map(({ guard, change }) => ({ ref: guard.ref, change }));
        const items = [
          ...entries.map(({ guard, change }) => batchUpdate(this.store.table, guard, change)),
          finishedTogetherStats(this.store.table, finished),
          ...finishedTogetherExtras(this.store.table, finished),
        ];
        try {
          await this.store.doc.send(new TransactWriteCommand({ TransactItems: items }));
          for (const i of group) results[i] = { established: true };
          group = [];
        } catch (error) {
          const refused = refusedItems(error);
          const lost = new Set(group.filter((_, n) => refused?.[n] === 'ConditionalCheckFailed'));
          if (lost.size === 0) throw error;
          group = group.filter((i) => !lost.has(i));
        }
      }
    }
    return results;
  }
}
