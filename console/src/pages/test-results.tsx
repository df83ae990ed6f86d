import type { LibrariesTestAnswer } from '../../../shared/contract/client-types';
import { ApiError } from '../api';
import { Json, Section } from '../ui';

/** A test call's answer, or a refused publish's 400 (its `results`): each revision, each event's output or error. */
interface RunError {
  message: string;
  messageId?: string | number;
  eventIndex?: number;
}
interface PublishRun {
  name: string;
  pass: boolean;
  tests: { transformedEvents?: unknown[]; errors?: RunError[]; input?: string }[];
}
/** A refused publish's 400 body: the manifest declares no error body beyond `{error}`, so its shape is checked when read. */
interface PublishRefusal {
  error: string;
  results: { transformations: PublishRun[]; libraries: PublishRun[] };
}
export type TestAnswer = LibrariesTestAnswer | PublishRefusal;

/** The results a refused publish answered, if `error` is one. */
export function refusalOf(error: unknown): PublishRefusal | undefined {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return undefined;
  const { results } = error.body as { results?: { transformations?: unknown; libraries?: unknown } };
  return Array.isArray(results?.transformations) && Array.isArray(results.libraries) ? (error.body as PublishRefusal) : undefined;
}

function Outcome({ name, pass, outputs, errors }: { name: string; pass: boolean; outputs: unknown[]; errors: RunError[] }) {
  return (
    <article aria-label={`Result of ${name}`}>
      <h3>
        {name}: <span class={pass ? 'ok' : 'status-failed'}>{pass ? 'passed' : 'failed'}</span>
      </h3>
      {errors.map((e) => (
        <p class="error">
          {e.eventIndex !== undefined ? `Event ${e.eventIndex}${e.messageId ? ` (${e.messageId})` : ''}: ` : ''}
          {e.message}
        </p>
      ))}
      {outputs.length > 0 && (
        <>
          <p>Output of the events that passed:</p>
          <Json value={outputs} />
        </>
      )}
    </article>
  );
}

export function TestResults({ title, answer }: { title: string; answer: TestAnswer }) {
  let runs: { name: string; pass: boolean; outputs: unknown[]; errors: RunError[] }[];
  if ('result' in answer) {
    runs = [
      ...answer.result.successTestResults.map((r) => ({
        name: r.name,
        pass: true,
        outputs: r.result.output.transformedEvents,
        errors: [],
      })),
      ...answer.result.failedTestResults.map((r) => ({
        name: r.name,
        pass: false,
        outputs: r.transformedEvents ?? [],
        errors: r.errors?.length ? r.errors : [{ message: r.result }],
      })),
    ];
  } else {
    runs = [...answer.results.transformations, ...answer.results.libraries].map((r) => ({
      name: r.name,
      pass: r.pass,
      outputs: r.tests.flatMap((t) => t.transformedEvents ?? []),
      errors: r.tests.flatMap((t) => t.errors ?? []),
    }));
  }
  return (
    <Section title={title}>
      {runs.length === 0 && <p>No transformation was run.</p>}
      {runs.map((run) => (
        <Outcome {...run} />
      ))}
    </Section>
  );
}
