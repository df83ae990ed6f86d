import type { LiveEvent } from '../../shared/contract/client-types';
import { api } from './api';
import { count, seconds } from './figures';
import type { DestinationFunnel } from './funnel-pipeline';
import { FailuresTable } from './failures-table';
import { ErrorBox, Json, percent, Scroll, useLoad, when } from './ui';

export type StepKey = 'ruleFiltered' | 'filtered' | 'transformFailed' | 'suppressed' | 'duplicate' | 'retrying' | 'aborted' | 'delivered';

/** How many samples, and failures, a step shows. */
const SHOWN = 10;

const ABORT_LABELS: Record<keyof Omit<DestinationFunnel['aborted'], 'total'>, string> = {
  http4xx: 'a 4xx answer',
  config: 'invalid configuration',
  transformation: 'transformation error',
  vendor: "the vendor's verdict in a 2xx",
  expired: 'retries ran out',
  age: "outside the vendor's age window",
};

/** What an opened step shows of its events: where they are kept, the API has them. */
export function StepEvents({ destinationId, funnel, step }: { destinationId: string; funnel: DestinationFunnel; step: StepKey }) {
  switch (step) {
    case 'ruleFiltered':
      return (
        <div class="step-events">
          <RuleCounts destinationId={destinationId} />
          <Samples destinationId={destinationId} pick={(s) => s.outcome === 'filtered' && s.rule !== undefined} what="stopped by a rule" />
        </div>
      );
    case 'filtered':
      return (
        <div class="step-events">
          <Samples destinationId={destinationId} pick={(s) => s.outcome === 'filtered' && s.rule === undefined} what="dropped by the transformation" />
        </div>
      );
    case 'transformFailed':
      return (
        <div class="step-events">
          <ErrorClasses funnel={funnel} pick={(c) => c === 'transformFailed'} />
          <Failures destinationId={destinationId} funnel={funnel} reason="transformFailed" />
        </div>
      );
    case 'suppressed':
      return <p class="step-events hint">Events of users a regulation suppresses are neither sent nor shown: the Regulations page lists who is suppressed.</p>;
    case 'duplicate':
      return (
        <p class="step-events hint">
          Events whose messageId the source accepted before, within its de-duplication window, are not sent again: the source&apos;s live events mark each with
          when its messageId was first seen.
        </p>
      );
    case 'retrying':
      return (
        <div class="step-events">
          <Samples destinationId={destinationId} pick={(s) => s.outcome === 'retrying'} what="parked for a retry" />
        </div>
      );
    case 'aborted':
      return (
        <div class="step-events">
          <AbortClasses funnel={funnel} />
          <ErrorClasses funnel={funnel} pick={(c) => c !== 'transformFailed'} />
          <Failures destinationId={destinationId} funnel={funnel} />
        </div>
      );
    case 'delivered':
      return (
        <div class="step-events">
          <p>
            Latency, ingestion to the vendor&apos;s 2xx: p50 {seconds(funnel.latencyMs.p50)}, p95 {seconds(funnel.latencyMs.p95)}.
          </p>
          <Samples destinationId={destinationId} pick={(s) => s.outcome === 'delivered'} what="delivered" />
        </div>
      );
  }
}

/** The aborted events by class, those with none left out. */
function AbortClasses({ funnel }: { funnel: DestinationFunnel }) {
  const routed = funnel.routed + funnel.expanded;
  const classes = Object.entries(ABORT_LABELS).filter(([c]) => funnel.aborted[c as keyof typeof ABORT_LABELS] > 0);
  return (
    <Scroll label="Aborted by class, scrollable">
      <table aria-label="Aborted by class">
        <thead>
          <tr>
            <th scope="col">Aborted by</th>
            <th scope="col">Events</th>
            <th scope="col">Of routed</th>
          </tr>
        </thead>
        <tbody>
          {classes.map(([c, label]) => {
            const n = funnel.aborted[c as keyof typeof ABORT_LABELS];
            return (
              <tr>
                <th scope="row">{label}</th>
                <td>{count(n)}</td>
                <td>{percent(n, routed)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Scroll>
  );
}

/** The window's error classes (the ten most frequent of the destination), each with one answer it gave. */
function ErrorClasses({ funnel, pick }: { funnel: DestinationFunnel; pick: (errorClass: string) => boolean }) {
  const classes = funnel.errorClasses.filter((e) => pick(e.class));
  if (classes.length === 0) return null;
  return (
    <Scroll label="Errors of this step, scrollable">
      <table aria-label="Errors of this step">
        <thead>
          <tr>
            <th scope="col">Class</th>
            <th scope="col">Status</th>
            <th scope="col">Events</th>
            <th scope="col">Sample error</th>
          </tr>
        </thead>
        <tbody>
          {classes.map((e) => (
            <tr>
              <td>{e.class}</td>
              <td>{e.status ?? ''}</td>
              <td>{count(e.count)}</td>
              <td>{e.sample}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/**
 * The newest failed events of the funnel's window (of one reason, or all), read from the failures listing, and
 * the way to the whole list on the page.
 */
function Failures({ destinationId, funnel, reason }: { destinationId: string; funnel: DestinationFunnel; reason?: 'transformFailed' }) {
  const page = useLoad(
    () =>
      api.call('GET /v2/destinations/{id}/failures', {
        params: { id: destinationId },
        query: { from: funnel.window.from, to: funnel.window.to, limit: SHOWN, order: 'newest', ...(reason && { reason }) },
      }),
    [destinationId, funnel.window.from, funnel.window.to, reason],
  );
  const failures = page.data?.failures ?? [];
  return (
    <>
      <ErrorBox error={page.error} />
      {page.data && (
        <>
          <h3>The window&apos;s newest failed events</h3>
          {failures.length === 0 ? (
            <p>None listed on the first page (its users may be suppressed or deleted).</p>
          ) : (
            <FailuresTable label="Newest failed events" failures={failures} />
          )}
          <button type="button" class="secondary" onClick={() => document.getElementById('failed-events')?.scrollIntoView({ block: 'start' })}>
            Go to every failed event of the window
          </button>
        </>
      )}
    </>
  );
}

type Sample = LiveEvent & { outcome?: string; rule?: string; status?: number; error?: string; at?: string; request?: unknown; response?: unknown };

/**
 * Samples of the destination's recent batches (what was sent and answered, kept for a day) with the outcome
 * of the step: samples, not every event of the window.
 */
function Samples({ destinationId, pick, what }: { destinationId: string; pick: (sample: Sample) => boolean; what: string }) {
  const recent = useLoad(() => api.call('GET /v2/destinations/{id}/live-events', { params: { id: destinationId }, query: { limit: 200 } }), [destinationId]);
  const samples = ((recent.data?.events ?? []) as Sample[]).filter(pick).slice(0, SHOWN);
  return (
    <>
      <ErrorBox error={recent.error} />
      <h3>Samples {what}, from the recent batches</h3>
      {recent.data && samples.length === 0 && <p>No sample {what} among the recent batches (they keep up to 20 events each, for a day).</p>}
      {samples.length > 0 && (
        <Scroll label={`Samples ${what}, scrollable`}>
          <table aria-label={`Samples ${what}`}>
            <thead>
              <tr>
                <th scope="col">Batch finished</th>
                <th scope="col">Message</th>
                <th scope="col">Rule or answer</th>
                <th scope="col">Sent and answered</th>
              </tr>
            </thead>
            <tbody>
              {samples.map((s) => (
                <tr>
                  <td>{when(s.at)}</td>
                  <td>{String(s.messageId)}</td>
                  <td>{s.rule ?? [s.status, s.error].filter((x) => x !== undefined && x !== '').join(' ')}</td>
                  <td>
                    {s.request !== undefined || s.response !== undefined ? (
                      <details>
                        <summary>request and answer</summary>
                        <Json value={{ request: s.request, response: s.response }} />
                      </details>
                    ) : (
                      ''
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </>
  );
}

/** How many events each rule of the destination's connections stopped, by source, as the destination's counters hold them (all time). */
function RuleCounts({ destinationId }: { destinationId: string }) {
  const outcomes = useLoad(() => api.call('GET /v2/destinations/{id}/outcomes', { params: { id: destinationId } }), [destinationId]);
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const names = new Map((sources.data?.sources ?? []).map((s) => [s.id, s.name]));
  const rules = [...(outcomes.data?.filteredByRule ?? [])].sort((a, b) => b.filtered - a.filtered);
  return (
    <>
      <ErrorBox error={outcomes.error ?? sources.error} />
      <h3>Stopped per rule, since the destination was created</h3>
      {outcomes.data && rules.length === 0 && <p>No rule has stopped an event yet.</p>}
      {rules.length > 0 && (
        <Scroll label="Stopped per rule, scrollable">
          <table aria-label="Stopped per rule">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Rule</th>
                <th scope="col">Events stopped</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr>
                  <td>{names.get(r.sourceId) ?? r.sourceId}</td>
                  <td>{r.rule}</td>
                  <td>{count(r.filtered)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </>
  );
}
