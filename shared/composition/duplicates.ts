import { DuplicateFilter } from '../domain/ingestion/duplicates';
import { MessageIdIndexRepository } from '../persistence/message-id-index';
import { repository, type Services } from '../services';
import { sourcesOf } from './sources';

/** Which events repeat a messageId their source accepted before: delivery, replays and capture leave them out. */
export const duplicateFilter = (s: Services) =>
  s.once('duplicates', () => {
    const sources = sourcesOf(s);
    return new DuplicateFilter(
      repository(s, MessageIdIndexRepository),
      async (workspaceId, sourceId) => (await sources(workspaceId, sourceId))?.deduplicationWindowHours,
    );
  });
