import { Json, Section } from '../ui';

/** A test call's answer, or a refused publish's 400 (its `results`): each revision, each event's output or error. */
interface RunError {
  message: string;
  messageId?: string;
  eventIndex?: number;
}
interface Passed {
  id: string;
  name: string;
  result: { output: { transformedEvents: unknown[] } };
}
interface Failed {
  id: string;
  name: string;
  result: string;
  transformedEvents?: unknown[];
  errors?: RunError[];
}
interface PublishRun {
  name: string;
  pass: boolean;
  tests: { transformedEvents?: unknown[]; errors?: RunError[]; input?: string }[];
}
export type TestAnswer =
  | { result: { successTestResults: Passed[]; failedTestResults: Failed[] } }
  | { error: string; results: { transformations: PublishRun[]; libraries: PublishRun[] } };

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
