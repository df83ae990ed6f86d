import { useState } from 'preact/hooks';
import type { DestinationTestResult } from '../../../shared/contract/client-types';
import { api } from '../api';
import { ErrorBox, Section, Stage, useAction } from '../ui';

const SAMPLE = JSON.stringify({ type: 'track', event: 'Test Event', userId: 'test-user', properties: { plan: 'pro' } }, null, 2);

/**
 * A sample event through the destination's stages with the test interface: its published transformation,
 * the request the type builds, and (when asked) the destination's answer.
 */
export function DestinationTest({ destinationId, supportsTest }: { destinationId: string; supportsTest: boolean }) {
  const [message, setMessage] = useState(SAMPLE);
  const [send, setSend] = useState(false);
  const [result, setResult] = useState<{ input: unknown; answer: DestinationTestResult } | undefined>(undefined);
  const action = useAction();
  const run = async (event: Event) => {
    event.preventDefault();
    setResult(undefined);
    const answer = await action.run(async () => {
      // Whatever the text holds: the API checks that it is an event object and its words are shown.
      const input = JSON.parse(message) as Record<string, unknown>;
      const body = { message: input, stage: { user_transform: true, dest_transform: true, send_to_destination: send } };
      return { input, answer: await api.call('POST /v0/testDestination/{destination_id}', { params: { destination_id: destinationId }, body }) };
    });
    if (answer) setResult(answer);
  };
  return (
    <Section title="Test event">
      {!supportsTest && <p class="hint">Weir delivers this type itself: the test interface refuses it.</p>}
      <form class="stack" onSubmit={run} aria-label="Test event">
        <label for="test-message">Event (JSON)</label>
        <textarea id="test-message" rows={6} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
        <label class="row">
          <input type="checkbox" checked={send} onChange={(e) => setSend(e.currentTarget.checked)} />
          Send it to the destination
        </label>
        <button type="submit" disabled={action.busy}>
          Run test event
        </button>
      </form>
      <ErrorBox error={action.error} />
      {result &&
        ('error' in result.answer ? (
          <p class="error" role="alert">
            {result.answer.error}
          </p>
        ) : (
          <div data-testid="test-event-result">
            <Stage title="Input" value={result.input} />
            {result.answer.data.map((entry, i, all) => (
              <StagesOf entry={entry} title={all.length > 1 ? `Output ${i + 1} of the transformation` : undefined} />
            ))}
          </div>
        ))}
    </Section>
  );
}

type Entry = Extract<DestinationTestResult, { data: unknown }>['data'][number];

/** One event's way through the stages that ran: the connection's rules, the transformation, the request built, the answer. */
function StagesOf({ entry, title }: { entry: Entry; title?: string }) {
  const status = entry.destination_response_status;
  return (
    <>
      {title && <h3>{title}</h3>}
      {entry.rules_payload !== undefined && <Stage title="After the connection's rules" value={entry.rules_payload} />}
      {entry.user_transformed_payload !== undefined && <Stage title="Transformed" value={entry.user_transformed_payload} />}
      {entry.dest_transformed_payload !== undefined && <Stage title="Destination payload" value={entry.dest_transformed_payload} />}
      {entry.destination_response !== undefined && (
        <Stage title={`Destination's answer${status?.length ? ` (status ${status.join(', ')})` : ''}`} value={entry.destination_response} />
      )}
    </>
  );
}
