/**
 * How long accepted events are kept (the archive that delivery, its retries, the audit and replays read):
 * `WEIR_ARCHIVE_RETENTION_DAYS`, 7 by default. The store's TTL removes what is older.
 */
export const ARCHIVE_RETENTION_ENV = 'WEIR_ARCHIVE_RETENTION_DAYS';

export function archiveRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const days = Number(env[ARCHIVE_RETENTION_ENV]);
  return Number.isFinite(days) && days >= 1 && days <= 365 ? days : 7;
}

export const archiveRetentionMs = (env: NodeJS.ProcessEnv = process.env): number => archiveRetentionDays(env) * 24 * 3600_000;
