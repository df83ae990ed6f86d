import type * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { newId, now } from '../ids';
import type { AlertRepository } from './ports';
import { viewOf, type AlertCondition, type AlertRule, type AlertRuleCreate, type AlertRulePatch } from './schemas';

type Create = z.output<typeof AlertRuleCreate>;
type Patch = z.output<typeof AlertRulePatch>;

/** Alert rules as the API manages them, and the notifications they sent. */
export class AlertService {
  constructor(
    private readonly rules: AlertRepository,
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'getDestination'>,
  ) {}

  async create(workspaceId: string, input: Create) {
    await this.checkTargets(workspaceId, input.condition);
    const at = now();
    const rule: AlertRule = { id: newId(), workspaceId, ...input, createdAt: at, updatedAt: at, state: 'ok', snapshots: [], version: 0 };
    await this.rules.create(rule);
    return viewOf(rule);
  }

  async list(workspaceId: string) {
    return { rules: (await this.rules.list(workspaceId)).map(viewOf) };
  }

  async get(workspaceId: string, id: string) {
    return viewOf(await this.find(workspaceId, id));
  }

  /** A changed condition starts over: state ok, its readings gone (a firing rule's recovery is not announced). */
  async update(workspaceId: string, id: string, patch: Patch) {
    const rule = await this.find(workspaceId, id);
    if (patch.condition) await this.checkTargets(workspaceId, patch.condition);
    const fresh = patch.condition ? { state: 'ok' as const, snapshots: [], reading: undefined, since: undefined } : {};
    const updated = await this.rules.replace(rule, { ...patch, ...fresh, updatedAt: now() });
    if (!updated) throw new ConflictError(`alert rule ${id} changed meanwhile; read it again`);
    return viewOf(updated);
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    if (!(await this.rules.delete(workspaceId, id))) throw NotFoundError.of('alert rule', id);
  }

  async notifications(workspaceId: string) {
    return { notifications: await this.rules.notifications(workspaceId, 100) };
  }

  private async find(workspaceId: string, id: string): Promise<AlertRule> {
    const rule = await this.rules.get(workspaceId, id);
    if (!rule) throw NotFoundError.of('alert rule', id);
    return rule;
  }

  private async checkTargets(workspaceId: string, condition: AlertCondition): Promise<void> {
    if ('sourceId' in condition && !(await this.catalog.getSource(workspaceId, condition.sourceId))) {
      throw new ValidationError(`condition.sourceId: no source ${condition.sourceId} in this workspace`);
    }
    if ('destinationId' in condition && !(await this.catalog.getDestination(workspaceId, condition.destinationId))) {
      throw new ValidationError(`condition.destinationId: no destination ${condition.destinationId} in this workspace`);
    }
  }
}
