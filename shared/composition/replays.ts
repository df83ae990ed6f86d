import { ReplayService } from '../domain/replays/replay-service';
import { CatalogRepository } from '../persistence/catalog-repository';
import { ReplayRepository } from '../persistence/replay-repository';
import { repository, type Services } from '../services';

/** Replays as the API manages them (the runner, which carries delivery, is composed in replay-runner.ts). */
export const replayService = (s: Services) => s.once('replays', () => new ReplayService(repository(s, ReplayRepository), repository(s, CatalogRepository)));
