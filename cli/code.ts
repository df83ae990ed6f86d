import type { Api } from './api';
import type { TransformationState } from './state';

/**
 * Transformations and libraries through the API: a draft revision (not published: live traffic keeps the
 * published one) that the tests run on, then publishing with the destinations the files connect to it.
 * Their key is kept as the externalId.
 */
export interface TestReport {
  pass: boolean;
  lines: string[];
}

/** Writes a draft revision of the transformation (creating it unpublished when new); its id and version. */
export async function draftTransformation(api: Api, id: string | undefined, t: TransformationState): Promise<{ id: string; versionId: string }> {
  const body = { name: t.name, description: t.description, code: t.code, externalId: t.key };
  const draft = id
    ? await api.call('POST /transformations/{id}', { params: { id }, query: { publish: 'false' }, body })
    : await api.call('POST /transformations', { query: { publish: 'false' }, body });
  return { id: draft.id, versionId: draft.versionId };
}

/** Runs the transformation's tests on a revision through the API: a line per test, and whether all passed. */
export async function runTests(api: Api, versionId: string, t: TransformationState): Promise<TestReport> {
  const tests = t.tests ?? [];
  const answer = await api.raw('POST /transformations/tests/run', { body: { transformations: [{ versionId, testSuite: tests }] } });
  const body = answer.body as {
    pass?: boolean;
    message?: string;
    error?: string;
    validationOutput?: { transformations: { testResult: { results: { name: string; status: string; errors?: { message: string }[] }[] }; message?: string }[] };
  };
  if (answer.status !== 200 || !body.validationOutput)
    return { pass: false, lines: [`tests could not run: ${body.error ?? body.message ?? `HTTP ${answer.status}`}`] };
  const results = body.validationOutput.transformations.flatMap((r) => r.testResult.results);
  const passed = results.filter((r) => r.status === 'pass').length;
  const lines = [`tests: ${passed} of ${results.length} passed`];
  for (const r of results.filter((x) => x.status !== 'pass')) lines.push(`  ${r.status}: ${r.name}${r.errors?.[0] ? `: ${r.errors[0].message}` : ''}`);
  const pass = body.pass === true && passed === results.length;
  if (!pass && results.length === 0 && body.message) lines.push(`  ${body.message}`);
  return { pass, lines };
}

/** Publishes the transformation's code with the destinations it is to be connected to (replacing the others). */
export async function publishTransformation(api: Api, id: string, t: TransformationState, destinationIds: string[]): Promise<void> {
  await api.call('POST /transformations/{id}', {
    params: { id },
    query: { publish: 'true' },
    body: { name: t.name, description: t.description, code: t.code, externalId: t.key, destinationIds },
  });
}
