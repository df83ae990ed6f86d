import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Json, Section, useAction, useLoad, when } from '../ui';
import { ReplayForm } from './replay-form';

/** The windows the page offers: the last hours of ingestion. */
const WINDOWS = [
  { label: 'Last hour', hours: 1 },
  { label: 'Last 24 hours', hours: 24 },
  { label: 'Last 7 days', hours: 24 * 7 },
] as const;

const windowOf = (hours: number) => {
  const to = new Date(Date.now() + 60_000).toISOString();
  return { from: new Date(Date.now() - hours * 3600_000).toISOString(), to };
};

/** Per destination: its funnel over a window, latency, error classes, and its failed events with retry. */
export function Delivery() {
  const list = useLoad(() => api.call('GET /v2/destinations'));
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [hours, setHours] = useState<number>(24);
  const destinations = list.data?.destinations ?? [];
  const destination = destinations.find((d) => d.id === selected) ?? destinations[0];
  return (
    <div class="columns">
      <div>
        <ErrorBox error={list.error} />
        <ul class="picker" aria-label="Destinations">
          {destinations.map((d) => (
            <li>
              <button type="button" aria-pressed={d.id === destination?.id} onClick={() => setSelected(d.id)}>
                {d.name} <small>{d.type}</small>
              </button>
            </li>
          ))}
        </ul>
        <label for="delivery-window">Window</label>
        <select id="delivery-window" value={String(hours)} onChange={(e) => setHours(Number(e.currentTarget.value))}>
          {WINDOWS.map((w) => (
            <option value={String(w.hours)}>{w.label}</option>
          ))}
        </select>
      </div>
      {destination ? <DestinationDelivery key={`${destination.id}-${hours}`} destinationId={destination.id} hours={hours} /> : <p>No destination yet.</p>}
    </div>
  );
}

function DestinationDelivery({ destinationId, hours }: { destinationId: string; hours: number }) {
  const funnel = useLoad(
    () => api.call('GET /v2/destinations/{id}/delivery', { params: { id: destinationId }, query: windowOf(hours) }),
    [destinationId, hours],
    5000,
  );
  const f = funnel.data;
  const rows: [string, number | undefined][] = f
    ? [
        ['Routed', f.routed],
        ['Suppressed', f.suppressed],
        ['Stopped by a connection rule', f.ruleFiltered],
        ['Dropped by the transformation', f.filtered],
        ['Failed in the transformation', f.transformFailed],
        ['Delivered', f.delivered],
        ['Aborted: 4xx answer', f.aborted.http4xx],
        ['Aborted: invalid configuration', f.aborted.config],
        ['Aborted: transformation error', f.aborted.transformation],
        ['Aborted: vendor verdict', f.aborted.vendor],
        ['Aborted: retries ran out', f.aborted.expired],
        ["Aborted: outside the vendor's age window", f.aborted.age],
        ['Retrying', f.retrying],
      ]
    : [];
  return (
    <div>
      <Section title="Funnel">
        <ErrorBox error={funnel.error} />
        {f && (
          <>
            <p>
              Events ingested from {when(f.window.from)} to {when(f.window.to)}
              {f.expanded > 0 && `; ${f.expanded} more outputs of events the transformation fanned out`}.
            </p>
            <table aria-label="Funnel">
              <tbody>
                {rows.map(([label, n]) => (
                  <tr>
                    <th scope="row">{label}</th>
                    <td data-testid={`funnel-${label}`}>{n}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p aria-label="Latency">
              Latency, ingestion to the vendor&apos;s 2xx: p50 <strong>{f.latencyMs.p50 ?? '–'} ms</strong>, p95 <strong>{f.latencyMs.p95 ?? '–'} ms</strong> (
              {f.latencyMs.delivered} delivered)
            </p>
          </>
        )}
      </Section>
      <Section title="Error classes">
        {f && f.errorClasses.length === 0 && <p>No error.</p>}
        {f && f.errorClasses.length > 0 && (
          <table aria-label="Error classes">
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col">Status</th>
                <th scope="col">Events</th>
                <th scope="col">Sample answer</th>
              </tr>
            </thead>
            <tbody>
              {f.errorClasses.map((e) => (
                <tr>
                  <td>{e.class}</td>
                  <td>{e.status ?? ''}</td>
                  <td>{e.count}</td>
                  <td>{e.sample}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Failures destinationId={destinationId} hours={hours} onRetried={funnel.reload} />
      <ReplayForm destinationId={destinationId} />
    </div>
  );
}

function Failures({ destinationId, hours, onRetried }: { destinationId: string; hours: number; onRetried: () => Promise<void> }) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const listing = useLoad(
    () => api.call('GET /v2/destinations/{id}/failures', { params: { id: destinationId }, query: { ...windowOf(hours), limit: 50 } }),
    [destinationId, hours],
    5000,
  );
  const job = useLoad(
    async () => (jobId ? (await api.call('GET /v2/destinations/{id}/jobs/{jobId}', { params: { id: destinationId, jobId } })).job : undefined),
    [jobId],
    2000,
  );
  const finished = job.data?.status === 'done';
  // A finished job moved its events: the funnel and the listing show where they are now.
  useEffect(() => {
    if (finished) void Promise.all([listing.reload(), onRetried()]);
  }, [finished]);
  const retry = useAction();
  const start = async (body: { ids: string[] } | { from: string; to: string }) => {
    const started = await retry.run(() => api.call('POST /v2/destinations/{id}/failures/retry', { params: { id: destinationId }, body }));
    if (!started) return;
    setJobId(started.job.id);
    setPicked(new Set());
    await onRetried();
  };
  const failures = (listing.data?.failures ?? []) as Record<string, unknown>[];
  const toggle = (id: string) => setPicked((p) => (p.has(id) ? new Set([...p].filter((x) => x !== id)) : new Set([...p, id])));
  const progress = job.data?.progress;
  return (
    <Section title="Failed events">
      <ErrorBox error={listing.error ?? retry.error} />
      <div class="row">
        <button type="button" disabled={retry.busy || picked.size === 0} onClick={() => void start({ ids: [...picked] })}>
          Retry selected ({picked.size})
        </button>
        <button type="button" disabled={retry.busy || failures.length === 0} onClick={() => void start(windowOf(hours))}>
          Retry all in the window
        </button>
      </div>
      {job.data && progress && (
        <p role="status" aria-label="Retry job">
          Retry job {job.data.status}: {progress.selected} looked at, {progress.sent} sent, {progress.delivered} delivered, {progress.failed} failed,{' '}
          {progress.skipped} skipped
        </p>
      )}
      {failures.length === 0 ? (
        <p>No failed event in this window.</p>
      ) : (
        <table aria-label="Failed events">
          <thead>
            <tr>
              <th scope="col">Pick</th>
              <th scope="col">Aborted</th>
              <th scope="col">Message</th>
              <th scope="col">Reason</th>
              <th scope="col">Answer</th>
              <th scope="col">Retry</th>
              <th scope="col">Event</th>
            </tr>
          </thead>
          <tbody>
            {failures.map((failure) => {
              const id = String(failure.id);
              const answer = failure.answer as { status?: number; body?: string } | undefined;
              const retried = failure.retry as { state: string } | undefined;
              return (
                <tr>
                  <td>
                    <input type="checkbox" aria-label={`Pick ${String(failure.messageId)}`} checked={picked.has(id)} onChange={() => toggle(id)} />
                  </td>
                  <td>{when(failure.abortedAt)}</td>
                  <td>{String(failure.messageId)}</td>
                  <td>{String(failure.reason)}</td>
                  <td>
                    {answer?.status ?? ''} {answer?.body ?? String(failure.error)}
                  </td>
                  <td>{retried?.state ?? ''}</td>
                  <td>
                    <details>
                      <summary>event and payload</summary>
                      <Json value={{ event: failure.event, sent: failure.requests, transformation: failure.transformation, attempts: failure.attempts }} />
                    </details>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Section>
  );
}
