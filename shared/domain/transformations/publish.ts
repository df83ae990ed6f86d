import type { UserCodeReads, UserCodeRepository } from './ports';
import { NotFoundError, ValidationError } from '../errors';
import type { z } from 'zod';
import type { PublishRequest, SuiteRequest, UserCodeRevision, ValidationOutput } from './schemas';
import { defaultEvents, matchesExpected, parseTestInput, type EventError, type LibraryChoice, type TransformationTester } from './testing';

/** One test of a suite: events in, optionally the exact output expected. */
export interface TestDefinition {
  id: string;
  name: string;
  description?: string;
  input: Record<string, unknown>[];
  expectedOutput?: unknown[];
}

export interface TestRun {
  id: string;
  name: string;
  description?: string;
  status: 'pass' | 'fail' | 'error';
  /** The outputs of the events that passed, kept when other events fail. */
  transformedEvents: Record<string, unknown>[];
  /** The same outputs under the name rudder-cli reads. */
  actualOutput: Record<string, unknown>[];
  errors: EventError[];
  logs: string[];
}

export interface TransformationResult {
  id: string;
  name: string;
  versionId: string;
  externalId?: string;
  imports: string[];
  pass: boolean;
  /** False for transformations re-tested only because they import a library being published. */
  requested: boolean;
  tests: TestRun[];
}

export interface LibraryResult {
  id: string;
  name: string;
  handleName: string;
  versionId: string;
  externalId?: string;
  pass: boolean;
  message?: string;
}

export interface Evaluation {
  pass: boolean;
  transformations: TransformationResult[];
  libraries: LibraryResult[];
}

interface Target {
  revision: UserCodeRevision;
  suite: TestDefinition[];
  requested: boolean;
  externalId?: string;
}

const defaultSuite = (): TestDefinition[] => [{ id: 'default', name: 'default events', input: defaultEvents() }];
/** A transformation's suite in the documented publish and the Action's test call: its testInput, else the default events. */
const testInputSuite = (t: { testInput?: unknown }, i: number): TestDefinition[] => [
  { id: 'testInput', name: 'testInput', input: t.testInput === undefined ? defaultEvents() : parseTestInput(t.testInput, `transformations.${i}.testInput`) },
];
/** A transformation's suite for rudder-cli: the tests it gives, else the default events. */
const givenSuite = (t: { testSuite?: TestDefinition[] }): TestDefinition[] => (t.testSuite?.length ? t.testSuite : defaultSuite());

/**
 * The publish operation and the test runs clients make before it. Requested transformation revisions run
 * their tests; requested library revisions must load and every transformation whose published revision
 * imports one of them is re-tested with it on the default events. Publishing is all or nothing.
 */
export class PublishService {
  constructor(
    private readonly code: UserCodeReads & Pick<UserCodeRepository, 'findRevision' | 'publish'>,
    private readonly tester: TransformationTester,
  ) {}

  // --- the documented publish and the GitHub Action's test call -------------------------------------------

  async publish(workspaceId: string, request: PublishRequest): Promise<{ published: true }> {
    const evaluation = await this.evaluate(workspaceId, request, testInputSuite);
    assertPassed(evaluation, 'nothing was published');
    await this.commit(workspaceId, evaluation);
    return { published: true };
  }

  /** For publishing on create or update: refuses (400) unless these not yet saved revisions would publish. */
  async assertPublishable(
    workspaceId: string,
    requested: { revision: UserCodeRevision; events?: Record<string, unknown>[] }[],
    libraryRevisions: UserCodeRevision[],
  ): Promise<void> {
    const targets = requested.map(({ revision, events }) => ({
      revision,
      suite: events ? [{ id: 'events', name: 'events', input: parseTestInput(events, 'events') }] : defaultSuite(),
    }));
    assertPassed(await this.evaluateRevisions(workspaceId, targets, libraryRevisions), 'nothing was saved');
  }

  /**
   * The Action's shape: successTestResults carry bare output events. failedTestResults keep `result` (the
   * error text the Action shows) and add what the passing events became and each error with its event.
   */
  async test(workspaceId: string, request: PublishRequest) {
    const evaluation = await this.evaluate(workspaceId, request, testInputSuite);
    const successTestResults = [];
    const failedTestResults = [];
    for (const t of evaluation.transformations) {
      const run = t.tests[0];
      const base = { id: t.id, name: t.name, transformerVersionID: t.versionId };
      if (t.pass) {
        successTestResults.push({
          ...base,
          result: { output: { transformedEvents: run?.transformedEvents ?? [] }, logs: run?.logs ?? [] },
        });
      } else {
        const errors = run?.errors ?? [];
        failedTestResults.push({
          ...base,
          result: errors.map((e) => e.message).join('\n'),
          transformedEvents: run?.transformedEvents ?? [],
          errors,
        });
      }
    }
    for (const l of evaluation.libraries) {
      if (!l.pass) failedTestResults.push({ id: l.id, name: l.name, libraryVersionID: l.versionId, result: l.message ?? 'failed' });
    }
    return { result: { successTestResults, failedTestResults } };
  }

  // --- rudder-cli: test suites with expected outputs ----------------------------------------------------------

  async runSuites(workspaceId: string, request: SuiteRequest) {
    const evaluation = await this.evaluate(workspaceId, request, givenSuite);
    return {
      pass: evaluation.pass,
      ...(!evaluation.pass && { message: 'some tests did not pass' }),
      validationOutput: validationOutput(evaluation),
    };
  }

  /** Answers 200 with `published:false` and the validation output when a test fails (the CLI's contract). */
  async publishSuites(workspaceId: string, request: SuiteRequest) {
    const evaluation = await this.evaluate(workspaceId, request, givenSuite);
    if (evaluation.pass) await this.commit(workspaceId, evaluation);
    return { published: evaluation.pass, validationOutput: validationOutput(evaluation) };
  }

  // --- evaluation ------------------------------------------------------------------------------------------

  private async evaluate<T extends { versionId: string }>(
    workspaceId: string,
    request: { transformations?: T[]; libraries?: { versionId: string }[] },
    suiteOf: (t: T, i: number) => TestDefinition[],
  ): Promise<Evaluation> {
    const { transformations = [], libraries = [] } = request;
    // Validate the whole request (inputs, versions) before running anything.
    const suites = transformations.map((t, i) => suiteOf(t, i));
    const transformationRevisions = await Promise.all(
      transformations.map((t, i) => this.resolve(workspaceId, t.versionId, 'transformation', `transformations.${i}.versionId`)),
    );
    const libraryRevisions = await Promise.all(libraries.map((l, i) => this.resolve(workspaceId, l.versionId, 'library', `libraries.${i}.versionId`)));
    assertOnePerResource(transformationRevisions, 'transformations');
    assertOnePerResource(libraryRevisions, 'libraries');
    return this.evaluateRevisions(
      workspaceId,
      transformationRevisions.map((revision, i) => ({ revision, suite: suites[i] ?? defaultSuite() })),
      libraryRevisions,
    );
  }

  /**
   * What publishing these revisions would take, in one place for every way of publishing: each
   * transformation revision runs its suite with the given library revisions (else the published ones);
   * each library revision must load on its own, and every transformation whose published revision imports
   * one of them is re-tested with it on the default events.
   */
  async evaluateRevisions(
    workspaceId: string,
    requested: { revision: UserCodeRevision; suite: TestDefinition[] }[],
    libraryRevisions: UserCodeRevision[],
  ): Promise<Evaluation> {
    const chosen: LibraryChoice = new Map(libraryRevisions.map((r) => [r.importName ?? '', r]));
    const libraryResolver = this.tester.resolver(workspaceId, chosen);
    const heads = new Map((await this.code.listHeads('transformation', workspaceId)).map((h) => [h.id, h]));
    const targets: Target[] = requested.map(({ revision, suite }) => ({
      revision,
      suite,
      requested: true,
      externalId: heads.get(revision.id)?.externalId,
    }));
    for (const head of heads.values()) {
      const importsChosen = head.publishedImports?.some((name) => chosen.has(name));
      if (!head.publishedVersionId || !importsChosen || targets.some((t) => t.revision.id === head.id)) continue;
      const published = await this.code.getRevision('transformation', workspaceId, head.id, head.publishedVersionId);
      if (published) targets.push({ revision: published, suite: defaultSuite(), requested: false, externalId: head.externalId });
    }

    const libraryHeads = new Map((await this.code.listHeads('library', workspaceId)).map((h) => [h.id, h]));
    const libraries: LibraryResult[] = [];
    for (const revision of libraryRevisions) {
      const message = await this.tester.checkLibrary(revision);
      libraries.push({
        id: revision.id,
        name: revision.name,
        handleName: revision.importName ?? '',
        versionId: revision.versionId,
        externalId: libraryHeads.get(revision.id)?.externalId,
        pass: message === undefined,
        ...(message !== undefined && { message }),
      });
    }

    const transformations: TransformationResult[] = [];
    for (const target of targets) {
      const tests: TestRun[] = [];
      for (const test of target.suite) {
        const outcome = await this.tester.run(workspaceId, target.revision, test.input, libraryResolver);
        const matches = matchesExpected(outcome.transformedEvents, test.expectedOutput);
        const errors = matches ? outcome.errors : [...outcome.errors, { message: 'output does not match expectedOutput' }];
        tests.push({
          id: test.id,
          name: test.name,
          ...(test.description !== undefined && { description: test.description }),
          status: outcome.errors.length > 0 ? 'error' : matches ? 'pass' : 'fail',
          transformedEvents: outcome.transformedEvents,
          actualOutput: outcome.transformedEvents,
          errors,
          logs: outcome.logs,
        });
      }
      transformations.push({
        id: target.revision.id,
        name: target.revision.name,
        versionId: target.revision.versionId,
        ...(target.externalId !== undefined && { externalId: target.externalId }),
        imports: target.revision.imports ?? [],
        pass: tests.every((t) => t.status === 'pass'),
        requested: target.requested,
        tests,
      });
    }
    return {
      pass: transformations.every((t) => t.pass) && libraries.every((l) => l.pass),
      transformations,
      libraries,
    };
  }

  /** Moves every published pointer of the evaluation's requested revisions at once. */
  private async commit(workspaceId: string, evaluation: Evaluation): Promise<void> {
    await this.code.publish(workspaceId, [
      ...evaluation.transformations
        .filter((t) => t.requested)
        .map((t) => ({ kind: 'transformation' as const, id: t.id, versionId: t.versionId, publishedImports: t.imports })),
      ...evaluation.libraries.map((l) => ({ kind: 'library' as const, id: l.id, versionId: l.versionId })),
    ]);
  }

  private async resolve(workspaceId: string, versionId: string, kind: 'transformation' | 'library', field: string) {
    const found = await this.code.findRevision(workspaceId, versionId);
    if (!found) throw new NotFoundError(`${field}: ${kind} version ${versionId} not found`);
    if (found.kind !== kind) throw new ValidationError(`${field}: ${versionId} is a ${found.kind} version, not a ${kind} version`);
    if (!(await this.code.getHead(kind, workspaceId, found.revision.id))) {
      throw new NotFoundError(`${field}: the ${kind} of version ${versionId} was deleted`);
    }
    return found.revision;
  }
}

/** Refused publish: 400 with `published:false`, a message naming what failed, and the results. */
export class PublishRefusedError extends ValidationError {
  constructor(message: string, results: unknown) {
    super(message, undefined, { published: false, results });
  }
}

function assertPassed(evaluation: Evaluation, consequence: string): void {
  if (evaluation.pass) return;
  const failures = [
    ...evaluation.libraries.filter((l) => !l.pass).map((l) => `library ${l.name} does not load: ${l.message ?? 'failed'}`),
    ...evaluation.transformations
      .filter((t) => !t.pass)
      .map((t) => `transformation ${t.name}${t.requested ? '' : ' (it imports a library being published)'} fails: ${firstError(t) ?? 'failed'}`),
  ];
  throw new PublishRefusedError(`publish refused, ${consequence}: ${failures.join('; ')}`, {
    transformations: evaluation.transformations,
    libraries: evaluation.libraries,
  });
}

const firstError = (t: TransformationResult): string | undefined => t.tests.flatMap((r) => r.errors.map((e) => e.message))[0];

function assertOnePerResource(revisions: UserCodeRevision[], field: string) {
  const seen = new Map<string, string>();
  for (const r of revisions) {
    const other = seen.get(r.id);
    if (other) throw new ValidationError(`${field}: versions ${other} and ${r.versionId} belong to the same ${r.id}; publish one`);
    seen.set(r.id, r.versionId);
  }
}

function validationOutput(evaluation: Evaluation): z.input<typeof ValidationOutput> {
  return {
    transformations: evaluation.transformations.map((t) => ({
      id: t.id,
      ...(t.externalId !== undefined && { externalId: t.externalId }),
      name: t.name,
      versionId: t.versionId,
      imports: t.imports,
      pass: t.pass,
      testResult: {
        status: t.tests.some((r) => r.status === 'error') ? 'error' : t.pass ? 'pass' : 'fail',
        results: t.tests.map((r) => ({
          id: r.id,
          name: r.name,
          ...(r.description !== undefined && { description: r.description }),
          status: r.status,
          actualOutput: r.actualOutput,
          transformedEvents: r.transformedEvents,
          ...(r.errors.length > 0 && { errors: r.errors }),
        })),
      },
      ...(!t.pass && { message: firstError(t) ?? 'tests failed' }),
    })),
    libraries: evaluation.libraries.map((l) => ({
      id: l.id,
      ...(l.externalId !== undefined && { externalId: l.externalId }),
      name: l.name,
      handleName: l.handleName,
      versionId: l.versionId,
      pass: l.pass,
      ...(l.message !== undefined && { message: l.message }),
    })),
  };
}
