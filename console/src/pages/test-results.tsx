import type { LibrariesTestAnswer } from '../../../shared/contract/client-types';
import { ApiError } from '../api';
import { Section, Stage } from '../ui';

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

interface Run {
  name: string;
  pass: boolean;
  outputs: unknown[];
  errors: RunError[];
  logs: string[];
}

/** One transformation's or library's run: passed or failed, each event's error, then its stages (transformed events, logs) as folding blocks. */
function Outcome({ name, pass, outputs, errors, logs }: Run) {
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
      {outputs.length > 0 && <Stage title={pass ? 'Transformed' : 'Transformed (the events that passed)'} value={outputs} />}
      {logs.length > 0 && <Stage title="Logs" value={logs} open={false} />}
    </article>
  );
}

/** A test's results by stage: the input events once, then each run's transformed events and logs. */
export function TestResults({ title, answer, input }: { title: string; answer: TestAnswer; input?: unknown[] }) {
  let runs: Run[];
  if ('result' in answer) {
    runs = [
      ...answer.result.successTestResults.map((r) => ({
        name: r.name,
        pass: true,
        outputs: r.result.output.transformedEvents,
        errors: [],
        logs: r.result.logs,
      })),
      ...answer.result.failedTestResults.map((r) => ({
        name: r.name,
        pass: false,
        outputs: r.transformedEvents ?? [],
        errors: r.errors?.length ? r.errors : [{ message: r.result }],
        logs: [],
      })),
    ];
  } else {
    runs = [...answer.results.transformations, ...answer.results.libraries].map((r) => ({
      name: r.name,
      pass: r.pass,
      outputs: r.tests.flatMap((t) => t.transformedEvents ?? []),
      errors: r.tests.flatMap((t) => t.errors ?? []),
      logs: [],
    }));
  }
  return (
    <Section title={title}>
      {runs.length === 0 && <p>No transformation was run.</p>}
      {input && runs.length > 0 && <Stage title="Input" value={input} />}
      {runs.map((run) => (
        <Outcome {...run} />
      ))}
    </Section>
  );
}
