import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { DockerImage, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Distribution, HeadersFrameOption, HeadersReferrerPolicy, ResponseHeadersPolicy, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { consoleSecurityHeaders } from '../../shared/contract/console';
import { acknowledge, acknowledgeBucketDeployment } from './nag';
import type { StageConfig } from './stage';

const ROOT = path.resolve(__dirname, '../..');
const CONSOLE_DIR = path.join(ROOT, 'console');

export interface ConsoleSiteStackProps extends StackProps {
  stage: StageConfig;
}

/**
 * The console's static site of a stage: a private bucket behind CloudFront (origin access control), with
 * the built app. It knows nothing of the APIs, so the control plane can name its origin for CORS; the
 * control-plane stack writes config.json (its API's URL) into the bucket (ConsoleConfig).
 */
export class ConsoleSiteStack extends Stack {
  readonly bucket: IBucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: the one origin the control plane allows. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteStackProps) {
    super(scope, id, props);
    const bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: props.stage.isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      autoDeleteObjects: !props.stage.isProduction,
    });
    // The pages may call only this region's API Gateway hosts: naming the control plane's own would make
    // this stack depend on the one that depends on it for CORS. CORS itself stays exact.
    const headers = consoleSecurityHeaders(`https://*.execute-api.${this.region}.${this.urlSuffix}`);
    const responseHeadersPolicy = new ResponseHeadersPolicy(this, 'Headers', {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: headers.contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Weir ${props.stage.name} console`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy,
      },
    });
    this.bucket = bucket;
    this.origin = `https://${this.distribution.distributionDomainName}`;
    this.acknowledgeStaticSite(bucket);

    // Built by Vite on this machine while synthesizing (no Docker); prune off: config.json is written apart.
    const app = new BucketDeployment(this, 'App', {
      destinationBucket: bucket,
      distribution: this.distribution,
      prune: false,
      sources: [
        Source.asset(CONSOLE_DIR, {
          exclude: ['dist', 'dist.*'],
          bundling: {
            image: DockerImage.fromRegistry('node:22-slim'),
            local: {
              tryBundle(outputDir) {
                const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
                const built = spawnSync(
                  process.execPath,
                  [vite, 'build', '--config', path.join(CONSOLE_DIR, 'vite.config.mts'), '--outDir', outputDir, '--logLevel', 'warn'],
                  {
                    cwd: ROOT,
                    stdio: ['ignore', 'inherit', 'inherit'],
                    env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
                  },
                );
                return built.status === 0;
              },
            },
          },
        }),
      ],
    });
    acknowledgeBucketDeployment(app);
  }

  /**
   * The site is the console's built files and nothing else: no user data lives in the bucket or passes
   * through the distribution (the console's calls go to the control plane's API, which logs them).
   */
  private acknowledgeStaticSite(bucket: Bucket): void {
    const noData = "it serves only the console's static build; the console's API calls go to the control plane, whose stage keeps access logs.";
    acknowledge(
      bucket,
      'S1',
      `No server access logs: CloudFront (origin access control) is the bucket's only reader and deployments its only writer; ${noData}`,
    );
    acknowledge(this.distribution, 'CFR3', `No CloudFront access logs: ${noData}`);
    acknowledge(this.distribution, 'CFR1', 'No geographic restriction: operators use the console from wherever they are.');
    acknowledge(this.distribution, 'CFR2', `No WAF web ACL (billed per ACL, rule and request): ${noData}`);
    acknowledge(
      this.distribution,
      'CFR4',
      "Served on the distribution's default *.cloudfront.net certificate, where CloudFront sets the security policy; a minimum TLS version needs a custom domain with an ACM certificate, which Weir does not configure.",
    );
  }
}

export interface ConsoleConfigProps {
  site: ConsoleSiteStack;
  controlUrl: string;
  dataUrl: string;
}

/** config.json of the console (the stage's API URLs): it lives with the control plane, whose URL it needs. */
export class ConsoleConfig extends Construct {
  constructor(scope: Construct, id: string, props: ConsoleConfigProps) {
    super(scope, id);
    // No CloudFront invalidation (its API takes only `*` as a resource): config.json is served no-cache.
    const config = new BucketDeployment(this, 'Config', {
      destinationBucket: props.site.bucket,
      cacheControl: [CacheControl.noCache()],
      prune: false,
      sources: [Source.jsonData('config.json', { apiUrl: props.controlUrl, dataPlaneUrl: props.dataUrl })],
    });
    acknowledgeBucketDeployment(config);
  }
}
