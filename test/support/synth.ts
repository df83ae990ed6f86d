import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { createWeirStacks, stageConfig, type WeirStacks } from '../../infra/stacks';
import type { Plane } from '../../shared/contract/functions';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The context `cdk synth` runs with, so tests see the same feature flags as a real synth. */
export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')).context;
}

export interface SynthesizedStage {
  app: App;
  stacks: WeirStacks;
  state: Template;
  planes: Record<Plane, Template>;
  /** The stack that holds a plane's API. */
  planeStack: Record<Plane, WeirStacks['control'] | WeirStacks['data']>;
}

/** The app of one stage, not yet synthesized (so aspects can still be added), without bundling. */
export function stageApp(stage: string): { app: App; stacks: WeirStacks } {
  // An empty list of stacks to bundle makes NodejsFunction skip esbuild and stage a placeholder asset.
  const app = new App({ context: { ...cdkJsonContext(), stage, 'aws:cdk:bundling-stacks': [] } });
  return { app, stacks: createWeirStacks(app, stageConfig(stage)) };
}

/** Synthesizes one stage without bundling: no esbuild run, only templates. */
export function synthStage(stage: string): SynthesizedStage {
  const { app, stacks } = stageApp(stage);
  return {
    app,
    stacks,
    state: Template.fromStack(stacks.state),
    planes: { control: Template.fromStack(stacks.control), data: Template.fromStack(stacks.data) },
    planeStack: { control: stacks.control, data: stacks.data },
  };
}

export const logicalId = (construct: IConstruct): string => Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string }>;

export const resourcesOf = (template: Template, type: string): Resources => template.findResources(type) as Resources;

/** Resource path (`/v2/sources/{id}`) of every API Gateway resource, and of the root, by logical id. */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = resourcesOf(template, 'AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const props = resources[id]!.Properties!;
    const parent = props.ParentId as { Ref?: string };
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    const own = `${parentPath}/${props.PathPart as string}`;
    paths.set(id, own);
    return own;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

/** The path a Method's ResourceId points at (`/` for the API's root resource). */
export function methodPath(resourceId: unknown, paths: Map<string, string>): string {
  const ref = (resourceId as { Ref?: string }).Ref;
  return ref ? paths.get(ref)! : '/';
}

/** Whether a CloudFormation value refers to the ARN of the resource with this logical id. */
export const refersToArnOf = (value: unknown, id: string): boolean => JSON.stringify(value).includes(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
