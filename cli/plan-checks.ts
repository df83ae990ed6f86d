import type { Api } from './api';
import { draftTransformation, runTests } from './code';
import type { Plan } from './plan';
import type { ConnectionState, TransformationState } from './state';

/**
 * What plan asks the API before it says what a change will do: a changed transformation's tests, run on a draft
 * revision (live traffic keeps the published one), and a connection's changed rules tried on the source's recent
 * events (how many each rule would now stop; nothing is sent).
 */
export async function checkPlan(api: Api, plan: Plan): Promise<void> {
  for (const change of plan.changes) {
    if (change.kind === 'transformations' && change.action !== 'delete') {
      const t = change.desired as TransformationState;
      if (!t.tests?.length) {
        change.notes.push('tests: none in the files');
        continue;
      }
      const existing = plan.live.ids.transformations.get(t.key) ?? plan.live.drafts.transformations.get(t.key);
      const draft = await draftTransformation(api, existing, t);
      plan.live.drafts.transformations.set(t.key, draft.id);
      const report = await runTests(api, draft.versionId, t);
      change.notes.push(...report.lines);
      if (!report.pass) change.failed = true;
    }
    if (change.kind === 'connections' && change.action === 'update') {
      const id = plan.live.ids.connections.get(change.key)!;
      const rules = (change.desired as ConnectionState).rules;
      const run = await api.call('POST /v2/connections/{id}/rules/dry-run', { params: { id }, body: { rules: rules as never } });
      change.notes.push(`dry run on the source's ${run.events} most recent events: ${run.passed} would pass`);
      for (const rule of run.rules) change.notes.push(`  rule ${rule.label} would stop ${rule.stopped}`);
    }
  }
}
