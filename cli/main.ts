import { Command, CommanderError } from 'commander';
import path from 'node:path';
import { ApiError, apiClient, DEFAULT_URL } from './api';
import { ApplyError, applyPlan, refusals } from './apply';
import { exportFiles } from './export';
import { readLive } from './live';
import { consoleOutput, printProblems, type Output } from './output';
import { planChanges, type Plan } from './plan';
import { checkPlan } from './plan-checks';
import { printPlan } from './show-plan';
import type { State } from './state';
import { checkSpec } from './validate';

/**
 * `weir validate|export|plan|apply [dir]`: a workspace in files, checked, planned and applied through the
 * control plane's public API at WEIR_URL with the workspace token in WEIR_TOKEN. Exit status: 0 done (plan:
 * nothing would change), 2 plan found changes, 1 an error.
 */
export const EXIT = { ok: 0, error: 1, changes: 2 } as const;

interface Context {
  env: NodeJS.ProcessEnv;
  out: Output;
}

function client(ctx: Context) {
  const token = ctx.env.WEIR_TOKEN;
  if (!token) throw new ApiError(0, 'WEIR_TOKEN is not set: the workspace token (the console shows it; npm start prints the first one)', undefined);
  return apiClient(ctx.env.WEIR_URL || DEFAULT_URL, token);
}

function validate(ctx: Context, dir: string): number {
  const { loaded, desired } = checkSpec(dir, { offline: true, env: ctx.env });
  if (!desired) {
    printProblems(ctx.out, loaded.problems.list);
    return EXIT.error;
  }
  const count = Object.values(desired.state).reduce((n, list) => n + list.length, 0);
  ctx.out.line(`${dir}: valid (${loaded.files.size} file${loaded.files.size === 1 ? '' : 's'}, ${count} resource${count === 1 ? '' : 's'})`);
  return EXIT.ok;
}

interface PlanOptions {
  prune: boolean;
  /** Set every declared credential's value again from the environment (a secret's cannot be compared). */
  rotate: boolean;
}

async function planOf(ctx: Context, dir: string, options: PlanOptions): Promise<{ plan: Plan; desired: State } | undefined> {
  const { loaded, desired } = checkSpec(dir, { offline: false, env: ctx.env });
  if (!desired) {
    printProblems(ctx.out, loaded.problems.list);
    return undefined;
  }
  const api = client(ctx);
  const plan = planChanges(desired.state, await readLive(api), { rotate: options.rotate });
  await checkPlan(api, plan);
  return { plan, desired: desired.state };
}

async function plan(ctx: Context, dir: string, options: PlanOptions): Promise<number> {
  const planned = await planOf(ctx, dir, options);
  if (!planned) return EXIT.error;
  printPlan(ctx.out, planned.plan, options.prune);
  if (planned.plan.changes.some((c) => c.failed)) {
    ctx.out.error("a transformation's tests fail: apply would stop there");
    return EXIT.error;
  }
  return planned.plan.changes.length > 0 ? EXIT.changes : EXIT.ok;
}

async function apply(ctx: Context, dir: string, options: PlanOptions): Promise<number> {
  const planned = await planOf(ctx, dir, options);
  if (!planned) return EXIT.error;
  printPlan(ctx.out, planned.plan, options.prune);
  if (planned.plan.changes.length === 0) return EXIT.ok;
  const refused = refusals(planned.plan, options.prune);
  if (refused.length > 0) {
    for (const reason of refused) ctx.out.error(`refused: ${reason}`);
    ctx.out.error('nothing was applied');
    return EXIT.error;
  }
  ctx.out.line();
  ctx.out.line('Applying:');
  try {
    const applied = await applyPlan(client(ctx), planned.plan, planned.desired, ctx.out);
    ctx.out.line(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}.`);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof ApplyError)) throw error;
    ctx.out.error(`failed at ${error.at}: ${error.message}`);
    ctx.out.error(error.applied.length > 0 ? `applied before it: ${error.applied.join('; ')}` : 'nothing was applied before it');
    ctx.out.error('run weir apply again once it is fixed: it goes on from what is live');
    return EXIT.error;
  }
}

async function exportCommand(ctx: Context, dir: string): Promise<number> {
  const files = exportFiles(await readLive(client(ctx)), dir);
  ctx.out.line(`wrote ${files.length} file${files.length === 1 ? '' : 's'} to ${dir}: ${files.join(', ')}`);
  return EXIT.ok;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, out: Output = consoleOutput): Promise<number> {
  const ctx: Context = { env, out };
  let status: number = EXIT.ok;
  const dirOf = (dir?: string) => path.normalize(dir ?? '.');
  const program = new Command('weir')
    .description('A Weir workspace as files: validate, export, plan and apply them through the control-plane API (WEIR_URL, WEIR_TOKEN).')
    .exitOverride()
    .configureOutput({ writeOut: (s) => out.line(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) });
  program
    .command('validate')
    .argument('[dir]', 'the spec folder', '.')
    .description('check the files offline: the schema and Weir’s rules, each error with its file, line and field')
    .action((dir?: string) => void (status = validate(ctx, dirOf(dir))));
  program
    .command('export')
    .argument('[dir]', 'the folder to write', '.')
    .description("write the live workspace as files (credentials' values as { env: NAME }, never their values)")
    .action(async (dir?: string) => void (status = await exportCommand(ctx, dirOf(dir))));
  const ROTATE = "set every declared credential's value again from the environment (a secret's value cannot be read back to compare)";
  program
    .command('plan')
    .argument('[dir]', 'the spec folder', '.')
    .option('--rotate', ROTATE)
    .description('show what apply would change; exit 0 when nothing, 2 when something would')
    .action(async (dir: string | undefined, options: { rotate?: boolean }) => {
      status = await plan(ctx, dirOf(dir), { prune: false, rotate: options.rotate ?? false });
    });
  program
    .command('apply')
    .argument('[dir]', 'the spec folder', '.')
    .option('--prune', 'delete what the workspace has and the files do not')
    .option('--rotate', ROTATE)
    .option('--dry-run', 'only plan')
    .description('apply the plan in dependency order; a failure stops at that resource')
    .action(async (dir: string | undefined, options: { prune?: boolean; rotate?: boolean; dryRun?: boolean }) => {
      const planOptions = { prune: options.prune ?? false, rotate: options.rotate ?? false };
      status = options.dryRun ? await plan(ctx, dirOf(dir), planOptions) : await apply(ctx, dirOf(dir), planOptions);
    });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.error;
    if (error instanceof ApiError || error instanceof Error) {
      out.error(`weir: ${error.message}`);
      return EXIT.error;
    }
    throw error;
  }
  return status;
}
