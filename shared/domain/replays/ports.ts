import type { IngestPart } from '../ingestion/records';
import type { Replay, ReplayProgress } from './schemas';

/** A stored part as a replay reads it: its events, and where the archive goes on after it. */
export interface ArchivedPart extends IngestPart {
  receivedAt: string;
  /** The part's place in its source's archive (opaque): a replay's cursor. */
  position: string;
}

/** The archive of a source's accepted events, read by time (what ingestion stored, kept for the retention). */
export interface ArchiveReads {
  /** Up to `limit` parts received from `fromMs` (inclusive) to `toMs` (exclusive), oldest first, after `after`. */
  archivedParts(workspaceId: string, sourceId: string, window: { fromMs: number; toMs: number; after?: string }, limit: number): Promise<ArchivedPart[]>;
}

/**
 * Where replay jobs are kept: in their workspace, and, while they run, in an index the runner reads across
 * workspaces. Progress moves only with the cursor, in one conditional write, so no part is counted twice.
 */
export interface ReplayRepository {
  create(replay: Replay): Promise<void>;
  get(workspaceId: string, id: string): Promise<Replay | undefined>;
  /** The workspace's replays, newest first. */
  list(workspaceId: string, limit: number): Promise<Replay[]>;
  /** Running replays across workspaces, oldest first. */
  running(limit: number): Promise<Replay[]>;
  /**
   * Records a finished part: the cursor moves to `cursor` and `added` is added to the progress, only if the
   * replay still runs and its cursor is still `replay.cursor`. The replay as written, or undefined.
   */
  advance(replay: Replay, cursor: string, added: ReplayProgress, at: string): Promise<Replay | undefined>;
  /** Ends a running replay (completed, failed, cancelled); undefined when it no longer runs. */
  finish(replay: Pick<Replay, 'workspaceId' | 'id'>, status: 'completed' | 'failed' | 'cancelled', at: string, error?: string): Promise<Replay | undefined>;
}
