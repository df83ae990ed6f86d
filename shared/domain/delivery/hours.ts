import { decodeTime } from 'ulid';

/**
 * The time a batch counts at: when its request was answered (its ULID's time), or, for a replay's batch
 * (`replay.<replayId>.<requestId>`), when the replay began, so every write of a batch counts in one hour.
 */
export const ingestedAt = (requestId: string): number => {
  const id = requestId.startsWith('replay.') ? requestId.split('.')[1]! : requestId;
  try {
    return decodeTime(id);
  } catch {
    return Date.now();
  }
};

/** The hour bucket a time falls in: `2026-11-26T10`. */
export const hourOf = (ms: number): string => new Date(ms).toISOString().slice(0, 13);
