import type { RouteResponse } from '../../shared/contract/client-types';
import { Json, Scroll, when } from './ui';

/** A failed event as GET /v2/destinations/{id}/failures lists it. */
export type ListedFailure = RouteResponse<'GET /v2/destinations/{id}/failures'>['failures'][number];

/** The picking of failures for a retry: which are picked, and the toggle of one. */
export interface FailurePicks {
  has: (id: string) => boolean;
  toggle: (id: string) => void;
}

/**
 * Failed events as one table, wherever they are shown: when each was aborted, its message, reason and answer;
 * optionally a pick box (for a retry of those picked), its retry's state, and the event with what was sent.
 */
export function FailuresTable({
  label,
  failures,
  pick,
  retry = false,
  event = false,
}: {
  /** The table's name (its scrolling box is named after it). */
  label: string;
  failures: ListedFailure[];
  pick?: FailurePicks;
  retry?: boolean;
  event?: boolean;
}) {
  return (
    <Scroll label={`${label}, scrollable`}>
      <table aria-label={label}>
        <thead>
          <tr>
            {pick && <th scope="col">Pick</th>}
            <th scope="col">Aborted</th>
            <th scope="col">Message</th>
            <th scope="col">Reason</th>
            <th scope="col">Answer</th>
            {retry && <th scope="col">Retry</th>}
            {event && <th scope="col">Event</th>}
          </tr>
        </thead>
        <tbody>
          {failures.map((failure) => {
            const id = String(failure.id);
            const answer = failure.answer as { status?: number; body?: string } | undefined;
            const retried = failure.retry as { state: string } | undefined;
            return (
              <tr key={id}>
                {pick && (
                  <td>
                    <input type="checkbox" aria-label={`Pick ${String(failure.messageId)}`} checked={pick.has(id)} onChange={() => pick.toggle(id)} />
                  </td>
                )}
                <td>{when(failure.abortedAt)}</td>
                <td>{String(failure.messageId)}</td>
                <td>{String(failure.reason)}</td>
                <td>
                  {answer?.status ?? ''} {answer?.body ?? String(failure.error)}
                </td>
                {retry && <td>{retried?.state ?? ''}</td>}
                {event && (
                  <td>
                    <details>
                      <summary>event and payload</summary>
                      <Json value={{ event: failure.event, sent: failure.requests, transformation: failure.transformation, attempts: failure.attempts }} />
                    </details>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </Scroll>
  );
}
