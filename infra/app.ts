import { App } from 'aws-cdk-lib';
import { createWeirStacks, stageConfig } from './stacks';

// The table lives in its own stateful stack (Weir-<stage>-State) that both plane stacks import, so either API
// stack can be replaced or destroyed without touching the data.
// Context: `-c stage=prod` (default dev); `-c adminUser=NAME` names the data-plane admin (default admin);
// `-c alarmEmail=ADDRESS` subscribes that address to the stage's alarms.
const app = new App();
const stage = stageConfig(String(app.node.tryGetContext('stage') ?? 'dev'), {
  adminUser: app.node.tryGetContext('adminUser') as string | undefined,
  alarmEmail: app.node.tryGetContext('alarmEmail') as string | undefined,
});
createWeirStacks(app, stage);
