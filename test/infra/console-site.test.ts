import { Template } from 'aws-cdk-lib/assertions';
import { CORS } from '../../shared/contract/cors';
import { resourcesOf, synthStage, type SynthesizedStage } from '../support/synth';

/** The console's static site per stage, and the control plane's CORS naming exactly its origin. */
let dev: SynthesizedStage;
let site: Template;
beforeAll(() => {
  dev = synthStage('dev');
  site = Template.fromStack(dev.stacks.console);
}, 120_000);

describe('the console site', () => {
  test('is a private, encrypted bucket served by CloudFront through origin access control, HTTPS only', () => {
    site.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    site.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    site.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: { DefaultRootObject: 'index.html', DefaultCacheBehavior: { ViewerProtocolPolicy: 'redirect-to-https' } },
    });
    const policies = Object.values(resourcesOf(site, 'AWS::CloudFront::ResponseHeadersPolicy'));
    expect(JSON.stringify(policies)).toContain("default-src 'self'; connect-src 'self' https://*.execute-api.");
  });

  test('gets the built app, and config.json with the stage’s API URLs from the control plane’s stack', () => {
    expect(Object.keys(resourcesOf(site, 'Custom::CDKBucketDeployment'))).toHaveLength(1);
    const control = dev.planes.control;
    const deployments = Object.values(resourcesOf(control, 'Custom::CDKBucketDeployment'));
    expect(deployments).toHaveLength(1);
    // The control plane's and data plane's API URLs go in (config.json's markers), served without caching.
    const properties = JSON.stringify(deployments[0]!.Properties);
    expect(properties).toContain('"Ref":"ControlPlaneApi');
    expect(properties).toContain('Weir-dev-Data:ExportsOutputRefDataPlaneApi');
    expect(properties).toContain('Weir-dev-Console:ExportsOutputRefBucket');
    expect(deployments[0]!.Properties).toMatchObject({ Prune: false, SystemMetadata: { 'cache-control': 'no-cache' } });
  });

  test('is the one origin the control plane allows: functions, preflights and gateway responses', () => {
    const control = dev.planes.control;
    const functions = Object.values(resourcesOf(control, 'AWS::Lambda::Function')).filter((f) => JSON.stringify(f.Properties).includes('WEIR_TABLE'));
    expect(functions.length).toBeGreaterThan(0);
    const withOrigin = functions.filter((f) => JSON.stringify(f.Properties).includes(CORS.originsVariable));
    expect(withOrigin.length).toBeGreaterThan(0);
    for (const f of withOrigin) {
      const origin = JSON.stringify((f.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables[CORS.originsVariable]);
      // https:// and the distribution's domain, imported from the console's stack: never a wildcard.
      expect(origin).toContain('https://');
      expect(origin).toContain('Weir-dev-Console');
      expect(origin).not.toContain('*');
    }
    const responses = Object.values(resourcesOf(control, 'AWS::ApiGateway::GatewayResponse'));
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) {
      expect(response.Properties!.ResponseParameters).toHaveProperty(['gatewayresponse.header.Access-Control-Allow-Origin']);
    }
    // The data plane never names the console: its browser routes echo any page's origin, its admin
    // authorizer's refusals carry none.
    const data = Object.values(resourcesOf(dev.planes.data, 'AWS::ApiGateway::GatewayResponse'));
    expect(JSON.stringify(data)).not.toContain('Weir-dev-Console');
    for (const response of data.filter((r) => ['ACCESS_DENIED', 'UNAUTHORIZED'].includes(r.Properties!.ResponseType as string))) {
      expect(response.Properties!.ResponseParameters).not.toHaveProperty(['gatewayresponse.header.Access-Control-Allow-Origin']);
    }
  });
});
