import type { ParkedRecord, ParkedRef } from './schemas';

/** Where stream records a consumer could not handle are parked until they are replayed. */
export interface ParkedRecordRepository {
  /** Parks a record, waiting; false when it is parked already (a redelivered record that failed again). */
  park(record: Omit<ParkedRecord, 'status' | 'attempts' | 'replays'>): Promise<boolean>;
  /**
   * Puts a parked record in `replaying` state until `leaseUntil`: when due (or at once with `onDemand`), or
   * when an earlier replay was lost. Returns it as it is now, or undefined when it is not there or not to be taken.
   */
  startReplay(ref: ParkedRef, now: string, leaseUntil: string, onDemand?: boolean): Promise<ParkedRecord | undefined>;
  /** A replay failed again: waiting until `dueAt`, with its error. False when it changed meanwhile. */
  replayFailed(record: ParkedRecord, error: string, dueAt: string): Promise<boolean>;
  /** A replay succeeded: the record is no longer parked. */
  release(record: ParkedRecord): Promise<void>;
  get(ref: ParkedRef): Promise<ParkedRecord | undefined>;
  /** Where the records a consumer parked in a workspace came from: their images' source, request and part. */
  itemsParkedBy(workspaceId: string, consumer: string): Promise<{ sourceId?: string; requestId?: string; part?: number }[]>;
  /** Parked records across workspaces, by due time; `before` limits them to those due by then. */
  list(limit: number, before?: string): Promise<ParkedRecord[]>;
}
