import type { App } from 'aws-cdk-lib';
import { ConsoleSiteStack } from './console-site';
import { ControlPlaneStack } from './control-plane-stack';
import { DataPlaneStack } from './data-plane-stack';
import type { StageConfig } from './stage';
import { StateStack } from './state-stack';

export { stageConfig, type StageConfig } from './stage';

export interface WeirStacks {
  state: StateStack;
  control: ControlPlaneStack;
  data: DataPlaneStack;
  console: ConsoleSiteStack;
}

/**
 * All stacks of one stage. Environment-agnostic on purpose: synth needs no credentials or lookups, and the
 * account and region come from whoever deploys.
 */
export function createWeirStacks(app: App, stage: StageConfig): WeirStacks {
  const prefix = `Weir-${stage.name}`;
  const tags = { project: 'weir', stage: stage.name };
  const state = new StateStack(app, `${prefix}-State`, {
    stage,
    tags,
    description: `Weir ${stage.name}: table`,
    terminationProtection: stage.isProduction,
  });
  const data = new DataPlaneStack(app, `${prefix}-Data`, {
    stage,
    table: state.table,
    alarmTopic: state.alarmTopic,
    tags,
    description: `Weir ${stage.name}: data plane`,
  });
  const consoleSite = new ConsoleSiteStack(app, `${prefix}-Console`, {
    stage,
    tags,
    description: `Weir ${stage.name}: console (static site)`,
  });
  const control = new ControlPlaneStack(app, `${prefix}-Control`, {
    stage,
    table: state.table,
    credentialsKey: state.credentialsKey,
    consoleSite,
    dataUrl: data.plane.api.url,
    alarmTopic: state.alarmTopic,
    tags,
    description: `Weir ${stage.name}: control plane`,
  });
  return { state, control, data, console: consoleSite };
}
