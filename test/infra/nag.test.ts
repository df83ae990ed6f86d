import { Aspects, CfnResource, type Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { stageApp } from '../support/synth';

/**
 * The rules acknowledged somewhere in infra/stacks, each with its reason where the resource is made (see
 * infra/stacks/nag.ts). docs/guides/deploying.md lists the same: a new one is a decision to write down.
 */
const ACKNOWLEDGED = ['APIG2', 'APIG3', 'APIG4', 'CFR1', 'CFR2', 'CFR3', 'CFR4', 'COG4', 'IAM4', 'IAM5', 'L1', 'S1', 'SMG4', 'SQS3'].map(
  (rule) => `AwsSolutions-${rule}`,
);

const NAG_FINDING = Match.stringLikeRegexp('AwsSolutions-.*');

interface Suppression {
  id: string;
  reason: string;
}

/** NagSuppressions records acknowledgements in the resource's CloudFormation metadata. */
const suppressionsOf = (construct: IConstruct): Suppression[] =>
  construct instanceof CfnResource ? ((construct.getMetadata('cdk_nag') as { rules_to_suppress?: Suppression[] } | undefined)?.rules_to_suppress ?? []) : [];

// dev and prod differ (retention, removal policies, throttling): both are checked.
describe.each(['dev', 'prod'])('cdk-nag AwsSolutions on the %s stage', (stage) => {
  const { app, stacks } = stageApp(stage);
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const all = Object.values(stacks) as Stack[];

  test.each(all.map((stack) => [stack.stackName, stack] as const))('%s has no unacknowledged finding', (_name, stack) => {
    const annotations = Annotations.fromStack(stack);
    const findings = [...annotations.findError('*', NAG_FINDING), ...annotations.findWarning('*', NAG_FINDING)];
    const listed = findings.map((finding) => `${finding.id}\n  ${String(finding.entry.data).trim().split('\n').join('\n  ')}`);
    expect(listed).toEqual([]);
  });

  test('only the listed rules are acknowledged, never stack-wide, each with a reason', () => {
    const acknowledged = new Set<string>();
    for (const stack of all) {
      expect(stack.templateOptions.metadata?.cdk_nag).toBeUndefined();
      for (const construct of stack.node.findAll()) {
        for (const suppression of suppressionsOf(construct)) {
          acknowledged.add(suppression.id);
          expect(suppression.reason.length).toBeGreaterThan(40);
        }
      }
    }
    expect([...acknowledged].sort()).toEqual(ACKNOWLEDGED);
  });
});
