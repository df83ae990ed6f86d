import type { CatalogRepository } from '../catalog/ports';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { newId, now } from '../ids';
import { archiveRetentionDays, archiveRetentionMs } from '../ingestion/retention';
import type { ReplayRepository } from './ports';
import { emptyProgress, viewOf, type Replay, type ReplayCreate, type ReplayView } from './schemas';

/** A window may end this far past the request (clocks differ); no later. */
const CLOCK_SKEW_MS = 60_000;

/** Replays as the API manages them: started, read, listed, cancelled. The runner (replay-runner.ts) sends them. */
export class ReplayService {
  constructor(
    private readonly replays: ReplayRepository,
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'getDestination'>,
  ) {}

  async create(workspaceId: string, input: ReplayCreate): Promise<ReplayView> {
    const [source, destination] = await Promise.all([
      this.catalog.getSource(workspaceId, input.sourceId),
      this.catalog.getDestination(workspaceId, input.destinationId),
    ]);
    if (!source) throw new ValidationError(`sourceId: no source ${input.sourceId} in this workspace`);
    if (!destination) throw new ValidationError(`destinationId: no destination ${input.destinationId} in this workspace`);
    if (!destination.enabled) throw new ValidationError(`destinationId: destination ${input.destinationId} is disabled; enable it to replay to it`);
    const at = Date.now();
    if (Date.parse(input.from) < at - archiveRetentionMs()) {
      throw new ValidationError(`from: before the archive's retention (${archiveRetentionDays()} days): the events stored then are gone`);
    }
    if (Date.parse(input.to) > at + CLOCK_SKEW_MS) throw new ValidationError('to: must not be in the future');
    const stamp = now();
    const replay: Replay = { id: newId(), workspaceId, ...input, status: 'running', createdAt: stamp, updatedAt: stamp, progress: emptyProgress() };
    await this.replays.create(replay);
    return viewOf(replay);
  }

  async get(workspaceId: string, id: string): Promise<ReplayView> {
    return viewOf(await this.find(workspaceId, id));
  }

  async list(workspaceId: string): Promise<{ replays: ReplayView[] }> {
    return { replays: (await this.replays.list(workspaceId, 100)).map(viewOf) };
  }

  /** Stops a running replay (a part being sent finishes first); cancelling a cancelled one changes nothing. */
  async cancel(workspaceId: string, id: string): Promise<ReplayView> {
    const replay = await this.find(workspaceId, id);
    if (replay.status === 'cancelled') return viewOf(replay);
    if (replay.status !== 'running') throw new ConflictError(`replay ${id} is ${replay.status}: only a running replay can be cancelled`);
    const cancelled = await this.replays.finish(replay, 'cancelled', now());
    if (cancelled) return viewOf(cancelled);
    // It ended meanwhile: say how.
    return this.cancel(workspaceId, id);
  }

  private async find(workspaceId: string, id: string): Promise<Replay> {
    const replay = await this.replays.get(workspaceId, id);
    if (!replay) throw NotFoundError.of('replay', id);
    return replay;
  }
}
