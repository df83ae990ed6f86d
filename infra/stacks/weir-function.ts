import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { SANDBOX_WORKER_BUNDLE_NAME, SANDBOX_WORKER_SOURCE } from '../../shared/sandbox/worker-entry';
import { BUNDLE_SETTINGS, bundleOf, DESTINATION_CODE_MODULES, EXTERNAL_MODULES, RUNTIME_MODULES, type OnDemandModule } from '../bundles';
import { acknowledgeTracing } from './nag';
import type { StageConfig } from './stage';

/** Contract entries are relative to the repository root, which is also the bundling project root. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export const RUNTIME = Runtime.NODEJS_24_X;

/** The sandbox's own wall-clock deadline is 4 s; the function must outlive it to report the timeout itself. */
const SANDBOX_TIMEOUT = Duration.seconds(15);
/** QuickJS gets a fresh capped WebAssembly memory per invocation; memory also buys CPU on Lambda. */
const SANDBOX_MEMORY_MB = 1024;

export interface WeirFunctionProps {
  /** Handler file, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  stage: StageConfig;
  environment?: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  /** Also bundle the sandbox worker next to the handler (endpoint functions that run user code). */
  usesSandbox?: boolean;
}

/** Construct ids from contract names (`catalog` → `Catalog`), so logical ids read like the manifest. */
export const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * An esbuild run with the handler's settings (infra/bundles.ts), as a command of the bundling shell: one entry
 * into `out` (`--outfile`), or several (`<name>=<entry>`) into the directory `out` (`--outdir`).
 */
const esbuildCommand = (entries: string | string[], out: string, external: string[]) =>
  [
    'npx --no-install esbuild',
    ...(typeof entries === 'string' ? [entries] : entries).map(shellQuote),
    `--bundle --platform=${BUNDLE_SETTINGS.platform} --format=${BUNDLE_SETTINGS.format} --minify --sourcemap`,
    `--target=${BUNDLE_SETTINGS.target}`,
    ...external.map((m) => shellQuote(`--external:${m}`)),
    shellQuote(typeof entries === 'string' ? `--outfile=${out}` : `--outdir=${out}`),
  ].join(' ');

/**
 * Bundles the sandbox worker with the same esbuild and settings as the handler, under the name the sandbox
 * looks for beside its bundle (shared/sandbox/worker-entry.ts). A shell command because command hooks run
 * in the bundling shell; `npx --no-install` is how CDK itself runs the local esbuild.
 */
function bundleSandboxWorker(inputDir: string, outputDir: string): string {
  return esbuildCommand(
    path.join(inputDir, path.relative(REPO_ROOT, SANDBOX_WORKER_SOURCE)),
    path.join(outputDir, SANDBOX_WORKER_BUNDLE_NAME),
    EXTERNAL_MODULES,
  );
}

/**
 * An on-demand package (infra/bundles.ts) bundled on its own where the handler's `import()` finds it, in
 * node_modules beside the handler's bundle; esbuild resolves the package name from the project root.
 */
const bundleOnDemand = (outputDir: string, name: OnDemandModule): string =>
  esbuildCommand(name, path.join(outputDir, 'node_modules', name, 'index.js'), RUNTIME_MODULES);

/**
 * Every destination type's code (infra/bundles.ts: DESTINATION_CODE_MODULES) bundled on its own, in one esbuild
 * run, as `destinations/<folder>/index.js` beside the handler, where the registry's `require` finds it.
 */
const bundleDestinationCode = (inputDir: string, outputDir: string): string =>
  esbuildCommand(
    DESTINATION_CODE_MODULES.map(({ entry, out }) => `${out}=${path.join(inputDir, entry)}`),
    outputDir,
    EXTERNAL_MODULES,
  );

/**
 * A Lambda function of Weir: one handler file bundled by the locally installed esbuild (never Docker, so
 * synth works offline), ARM, with its own log group so retention and removal follow the stage.
 */
export function weirFunction(scope: Construct, id: string, props: WeirFunctionProps): NodejsFunction {
  const { onDemand = [], destinationCode = false } = bundleOf(props.entry);
  const afterBundling = (inputDir: string, outputDir: string) => [
    ...(props.usesSandbox ? [bundleSandboxWorker(inputDir, outputDir)] : []),
    ...onDemand.map((name) => bundleOnDemand(outputDir, name)),
    ...(destinationCode ? [bundleDestinationCode(inputDir, outputDir)] : []),
  ];
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.stage.logRetention,
    removalPolicy: props.stage.removalPolicy,
  });
  // Its own role, which may write to its own log group only (the default AWSLambdaBasicExecutionRole would let
  // it create and write any log group of the account); callers grant the table, the key, the stream.
  const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, id, {
    entry: path.join(REPO_ROOT, props.entry),
    handler: 'handler',
    description: props.description,
    runtime: RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: props.usesSandbox ? Math.max(SANDBOX_MEMORY_MB, props.memorySize ?? 0) : (props.memorySize ?? 512),
    // Sandbox functions outlive the sandbox's deadline; a longer time-out asked for (stream consumers) wins.
    timeout: props.usesSandbox
      ? Duration.seconds(Math.max(SANDBOX_TIMEOUT.toSeconds(), props.timeout?.toSeconds() ?? 0))
      : (props.timeout ?? Duration.seconds(10)),
    projectRoot: REPO_ROOT,
    depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
    logGroup,
    role,
    // X-Ray: every invocation traced, API Gateway stages too (plane-api.ts).
    tracing: Tracing.ACTIVE,
    environment: {
      // Stack traces from the minified bundle point at the TypeScript sources.
      NODE_OPTIONS: '--enable-source-maps',
      ...props.environment,
    },
    bundling: {
      format: OutputFormat.CJS,
      target: BUNDLE_SETTINGS.target,
      minify: BUNDLE_SETTINGS.minify,
      sourceMap: BUNDLE_SETTINGS.sourcemap,
      externalModules: EXTERNAL_MODULES,
      forceDockerBundling: false,
      commandHooks:
        props.usesSandbox || onDemand.length > 0 || destinationCode ? { beforeBundling: () => [], beforeInstall: () => [], afterBundling } : undefined,
    },
  });
  acknowledgeTracing(role);
  return fn;
}
