import { createHash, randomBytes } from 'node:crypto';
import type { CatalogRepository } from '../catalog/ports';
import { now, uuidv7 } from '../ids';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { DeletionJobRepository, RegulationFilters, RegulationRepository } from './ports';
import { DEFAULT_PAGE_SIZE, type Regulation, type RegulationCreate, type RegulationListQuery } from './schemas';
import { regulationStatus } from './status';

const CURSOR_TTL_SECONDS = 24 * 3600;
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const CURSOR_FORMAT = /^[0-9a-f]{32}$/;
const IDEMPOTENCY_KEY_FORMAT = /^[\x21-\x7e]{1,200}$/;

/** Data regulations (SPEC §4.B): one regulation per user, suppression at once, deletion followed per job. */
export class RegulationService {
  constructor(
    private readonly regulations: Omit<RegulationRepository, 'suppressionsOf' | 'suppressionStamp'>,
    private readonly jobs: Pick<DeletionJobRepository, 'list' | 'cancelWaiting'>,
    private readonly catalog: Pick<CatalogRepository, 'listSources' | 'listDestinations'>,
  ) {}

  /**
   * Creates one regulation per user. With an Idempotency-Key, a retried call (same key, same body) makes
   * nothing new and answers what the first made; the same key with another body is a conflict.
   */
  async create(workspaceId: string, body: RegulationCreate, idempotencyKey?: string): Promise<Regulation[]> {
    const scope = await this.resolveScope(workspaceId, body);
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_FORMAT.test(idempotencyKey)) {
      throw new ValidationError('Idempotency-Key: 1 to 200 visible ASCII characters');
    }
    const at = now();
    let planned: Regulation[] = body.users.map((user) => ({
      id: uuidv7(),
      workspaceId,
      canceled: false,
      regulationType: body.regulationType,
      attributes: Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as Record<string, string>,
      ...scope,
      createdAt: at,
    }));
    if (idempotencyKey !== undefined) {
      const requestHash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
      const fresh = await this.regulations.putIdempotency(workspaceId, idempotencyKey, { requestHash, regulations: planned }, IDEMPOTENCY_TTL_SECONDS);
      if (!fresh) {
        const recorded = await this.regulations.getIdempotency(workspaceId, idempotencyKey);
        if (recorded?.requestHash !== requestHash) {
          throw new ConflictError('Idempotency-Key: already used for a different request body');
        }
        planned = recorded.regulations as Regulation[];
      }
    }
    // On a replay this completes whatever the first call could not write, and leaves the rest as it is.
    await this.regulations.createRegulations(planned);
    return planned;
  }

  /**
   * Sources and destinations must exist in the workspace (SPEC §4.B rule 2: without destinationIds, every
   * destination of the workspace). A destination whose type cannot delete users never refuses the request:
   * the suppression must apply whatever the destinations can do; its job shows it as unsupported.
   */
  private async resolveScope(workspaceId: string, body: RegulationCreate): Promise<Pick<Regulation, 'sourceIds' | 'destinationIds'>> {
    if (body.regulationType === 'suppress') {
      if (!body.sourceIds) return {};
      const known = new Set((await this.catalog.listSources(workspaceId)).map((s) => s.id));
      body.sourceIds.forEach((id, i) => {
        if (!known.has(id)) throw new ValidationError(`sourceIds[${i}]: unknown source ${id}`);
      });
      return { sourceIds: [...new Set(body.sourceIds)] };
    }
    const known = new Set((await this.catalog.listDestinations(workspaceId)).map((d) => d.id));
    if (!body.destinationIds) return { destinationIds: [...known] };
    body.destinationIds.forEach((id, i) => {
      if (!known.has(id)) throw new ValidationError(`destinationIds[${i}]: unknown destination ${id}`);
    });
    return { destinationIds: [...new Set(body.destinationIds)] };
  }

  /** One page in creation order, and where the next starts: a random cursor, kept for a day, and only this workspace's. */
  async list(workspaceId: string, query: RegulationListQuery): Promise<{ data: Regulation[]; next?: { after_cursor: string } }> {
    let filters: RegulationFilters = {
      ...(query.userId !== undefined && { userId: query.userId }),
      ...(query.regulationType !== undefined && { regulationType: query.regulationType }),
      ...(query.canceled !== undefined && { canceled: query.canceled === 'true' }),
    };
    let afterSk: string | undefined;
    let limit = query.per_page ?? DEFAULT_PAGE_SIZE;
    if (query.after_cursor !== undefined) {
      const state = CURSOR_FORMAT.test(query.after_cursor) ? await this.regulations.getCursor(workspaceId, query.after_cursor) : undefined;
      if (!state) throw new ValidationError('after_cursor: unknown or expired cursor; take it from paging.next of the previous page');
      const given = Object.keys(filters).length > 0;
      if (given && JSON.stringify(filters) !== JSON.stringify(state.filters)) {
        throw new ValidationError('after_cursor: the cursor belongs to a listing with other filters; leave them out or start over');
      }
      filters = state.filters as RegulationFilters;
      afterSk = String(state.afterSk);
      limit = query.per_page ?? Number(state.limit);
    }
    const page = await this.regulations.listPage(workspaceId, { afterSk, limit, filters });
    if (!page.hasMore || !page.lastSk) return { data: page.items };
    const cursor = randomBytes(16).toString('hex');
    await this.regulations.putCursor(workspaceId, cursor, { afterSk: page.lastSk, filters, limit }, CURSOR_TTL_SECONDS);
    return { data: page.items, next: { after_cursor: cursor } };
  }

  async get(workspaceId: string, id: string) {
    const regulation = await this.regulations.getRegulation(workspaceId, id);
    if (!regulation) throw NotFoundError.of('regulation', id);
    if (regulation.regulationType === 'suppress') return { ...regulation, status: regulationStatus(regulation, []) };
    const jobs = await this.jobs.list(workspaceId, id);
    return {
      ...regulation,
      status: regulationStatus(regulation, jobs),
      jobs: jobs.map((job) => ({
        destinationId: job.destinationId,
        destinationType: job.destinationType,
        status: job.status,
        attempts: job.attempts,
        ...(job.lastError !== undefined && { lastError: job.lastError }),
        ...(job.reason !== undefined && { reason: job.reason }),
        ...(job.dueAt !== undefined && job.attempts > 0 && { nextAttemptAt: job.dueAt }),
        createdAt: job.createdAt,
        ...(job.finishedAt !== undefined && { finishedAt: job.finishedAt }),
      })),
    };
  }

  /**
   * Lifts the suppression at once and cancels the deletion jobs still waiting (running and finished ones keep
   * their course; no attempt starts after this returns, as every attempt checks the regulation first).
   */
  async cancel(workspaceId: string, id: string): Promise<Regulation> {
    const at = now();
    const regulation = await this.regulations.cancel(workspaceId, id, at);
    if (!regulation) throw NotFoundError.of('regulation', id);
    if (regulation.regulationType === 'suppress_with_delete') await this.jobs.cancelWaiting(workspaceId, id, at);
    return regulation;
  }
}
