import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { ENDPOINT_FUNCTIONS, SCHEDULED_FUNCTIONS, STREAM_CONSUMERS, type CredentialsAccess } from '../../shared/contract/functions';
import { logicalId, resourcesOf, synthStage } from '../support/synth';

/** The credentials key: it exists, and only the functions that read or write credentials have rights on it. */
const dev = synthStage('dev');
const prod = synthStage('prod');

/** Every function of the stage with the access its contract asks for. */
function functionsOf(stage: ReturnType<typeof synthStage>): [string, NodejsFunction, CredentialsAccess | undefined][] {
  const out: [string, NodejsFunction, CredentialsAccess | undefined][] = [];
  for (const [name, spec] of Object.entries(ENDPOINT_FUNCTIONS)) {
    out.push([name, stage.planeStack[spec.plane].plane.functions[name]!, 'credentials' in spec ? spec.credentials : undefined]);
  }
  for (const [name, spec] of Object.entries(STREAM_CONSUMERS)) out.push([name, stage.stacks.control.streamConsumers.functions[name]!, spec.credentials]);
  for (const [name, spec] of Object.entries(SCHEDULED_FUNCTIONS)) out.push([name, stage.stacks.control.scheduledFunctions.functions[name]!, spec.credentials]);
  for (const plane of ['control', 'data'] as const) {
    for (const [name, fn] of Object.entries(stage.planeStack[plane].plane.authorizerFunctions)) out.push([`${name} authorizer`, fn, undefined]);
  }
  return out;
}

/** The KMS actions granted to a function's role. */
function kmsActions(stage: ReturnType<typeof synthStage>, fn: NodejsFunction): string[] {
  const template = stage.planes[fn.stack === stage.stacks.data ? 'data' : 'control'];
  const roleId = logicalId(fn.role!);
  const statements = Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties!.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement);
  return [...new Set(statements.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith('kms:')))].sort();
}

test('the stage has a rotating credentials key, retained in production', () => {
  for (const [stage, policy] of [
    [dev, 'Delete'],
    [prod, 'Retain'],
  ] as const) {
    const keys = Object.values(resourcesOf(stage.state, 'AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    expect(keys[0]!.Properties).toMatchObject({ EnableKeyRotation: true });
    expect(keys[0]!.DeletionPolicy).toBe(policy);
  }
});

test('only the functions that decrypt credentials may decrypt; only the writer may make data keys', () => {
  const rights = Object.fromEntries(functionsOf(dev).map(([name, fn, access]) => [name, [access ?? 'none', kmsActions(dev, fn)]]));
  for (const [name, [access, actions]] of Object.entries(rights)) {
    if (access === 'none') expect([name, actions]).toEqual([name, []]);
    if (access === 'read') expect([name, actions]).toEqual([name, ['kms:Decrypt']]);
    if (access === 'write') expect([name, actions]).toEqual([name, ['kms:Decrypt', 'kms:GenerateDataKey']]);
  }
  expect(
    Object.entries(rights)
      .filter(([, [access]]) => access !== 'none')
      .map(([name]) => name)
      .sort(),
  ).toEqual(
    ['credentials', 'deletionScheduler', 'delivery', 'deliveryScheduler', 'regulationProcessor', 'replayRunner', 'testInterface', 'transformations'].sort(),
  );
});

test('those functions, and no others, know the key', () => {
  for (const [name, fn, access] of functionsOf(dev)) {
    const template = dev.planes[fn.stack === dev.stacks.data ? 'data' : 'control'];
    const props = resourcesOf(template, 'AWS::Lambda::Function')[logicalId(fn)]!.Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    expect([name, 'WEIR_KMS_KEY_ID' in props.Environment.Variables]).toEqual([name, access !== undefined]);
  }
});
