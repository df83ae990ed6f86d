import { useState } from 'preact/hooks';
import type { DestinationTestResult } from '../../../shared/contract/client-types';
import { api } from '../api';
import { ErrorBox, Json, Section, useAction } from '../ui';

const SAMPLE = JSON.stringify({ type: 'track', event: 'Test Event', userId: 'test-user', properties: { plan: 'pro' } }, null, 2);

/**
 * A sample event through the destination's stages with the test interface: its published transformation,
 * the request the type builds, and (when asked) the destination's answer.
 */
export function DestinationTest({ destinationId, supportsTest }: { destinationId: string; supportsTest: boolean }) {
  const [message, setMessage] = useState(SAMPLE);
  const [send, setSend] = useState(false);
  const [result, setResult] = useState<DestinationTestResult | undefined>(undefined);
  const action = useAction();
  const run = async (event: Event) => {
    event.preventDefault();
    setResult(undefined);
    const answer = await action.run(() =>
      api.call('POST /v0/testDestination/{destination_id}', {
        params: { destination_id: destinationId },
        // Whatever the text holds: the API checks that it is an event object and its words are shown.
        body: { message: JSON.parse(message) as Record<string, unknown>, stage: { user_transform: true, dest_transform: true, send_to_destination: send } },
      }),
    );
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
        ('error' in result ? (
          <p class="error" role="alert">
            {result.error}
          </p>
        ) : (
          <div data-testid="test-event-result">
            {result.data.map((entry) => (
              <Json value={entry} />
            ))}
          </div>
        ))}
    </Section>
  );
}
