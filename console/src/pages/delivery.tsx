import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { FunnelPipeline } from '../funnel-pipeline';
import { routeArgs, useScrollToRoutePart } from '../route';
import { FailuresTable } from '../failures-table';
import { ErrorBox, Scroll, Section, useAction, useConfirm, useLoad, when } from '../ui';
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
  // A link may name the destination (#/delivery/<id>), and its failed events (#/delivery/<id>/failures).
  const [selected, setSelected] = useState<string | undefined>(routeArgs()[0]);
  useScrollToRoutePart('failures', 'failed-events', (e) => e.querySelector('[data-testid="failures-count"]') !== null);
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
  return (
    <div>
      <Section title="Funnel">
        <ErrorBox error={funnel.error} />
        {f && <FunnelPipeline destinationId={destinationId} funnel={f} />}
      </Section>
      <Section title="Error classes">
        {f && f.errorClasses.length === 0 && <p>No error.</p>}
        {f && f.errorClasses.length > 0 && (
          <Scroll label="Error classes">
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
          </Scroll>
        )}
      </Section>
      <div id="failed-events">
        <Failures destinationId={destinationId} hours={hours} counted={f && f.aborted.total + f.transformFailed} onRetried={funnel.reload} />
      </div>
      <ReplayForm destinationId={destinationId} />
    </div>
  );
}

/** One page of the listing: as many failures as the API gives at once. */
const PAGE = 50;

function Failures({
  destinationId,
  hours,
  counted,
  onRetried,
}: {
  destinationId: string;
  hours: number;
  /** What the funnel counts aborted (and failed in the transformation) over the same hours. */
  counted: number | undefined;
  onRetried: () => Promise<void>;
}) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  // How many pages are shown: each refresh reads them again, following the API's cursors.
  const [pages, setPages] = useState(1);
  const listing = useLoad(
    async () => {
      const window = windowOf(hours);
      const listed: Record<string, unknown>[] = [];
      const withheld = { suppressed: 0, deleted: 0 };
      let after: string | undefined;
      let listedHours: { from: string; to: string } | undefined;
      for (let i = 0; i < pages; i++) {
        const page = await api.call('GET /v2/destinations/{id}/failures', {
          params: { id: destinationId },
          query: { ...window, limit: PAGE, order: 'newest', ...(after !== undefined && { after_cursor: after }) },
        });
        listed.push(...page.failures);
        withheld.suppressed += page.withheld.suppressed;
        withheld.deleted += page.withheld.deleted;
        listedHours = page.window;
        after = page.paging.next;
        if (after === undefined) break;
      }
      return { failures: listed, withheld, more: after !== undefined, window: listedHours };
    },
    [destinationId, hours, pages],
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
  const confirm = useConfirm();
  const start = async (body: { ids: string[] } | { from: string; to: string }) => {
    const started = await retry.run(() => api.call('POST /v2/destinations/{id}/failures/retry', { params: { id: destinationId }, body }));
    if (!started) return;
    setJobId(started.job.id);
    setPicked(new Set());
    await onRetried();
  };
  const retryAll = () => {
    const window = listing.data?.window;
    const span = window ? ` ingested from ${when(window.from)} to ${when(window.to)}` : '';
    void confirm.ask({
      question: `Retry ${counted ?? 'all the'} failed events${span}? Each is sent once more to the destination (those never sent, or sent again already and delivered, are skipped).`,
      confirm: `Retry ${counted ?? 'all'} events`,
      action: () => start(windowOf(hours)),
    });
  };
  const failures = listing.data?.failures ?? [];
  const withheld = listing.data?.withheld;
  const toggle = (id: string) => setPicked((p) => (p.has(id) ? new Set([...p].filter((x) => x !== id)) : new Set([...p, id])));
  const progress = job.data?.progress;
  return (
    <Section title="Failed events">
      <ErrorBox error={listing.error ?? retry.error} />
      <div class="row">
        <button type="button" disabled={retry.busy || picked.size === 0} onClick={() => void start({ ids: [...picked] })}>
          Retry selected ({picked.size})
        </button>
        <button type="button" disabled={retry.busy || failures.length === 0} onClick={retryAll}>
          Retry all in the window
        </button>
      </div>
      {confirm.dialog}
      {listing.data && (
        <p data-testid="failures-count">
          Listed {failures.length}
          {counted !== undefined && ` of the ${counted} the funnel counts`}
          {withheld &&
            withheld.suppressed + withheld.deleted > 0 &&
            `; ${withheld.suppressed + withheld.deleted} more not shown (their users are suppressed or deleted)`}
          {listing.data.more && '; more on the next page'}.
        </p>
      )}
      {job.data && progress && (
        <p role="status" aria-label="Retry job">
          Retry job {job.data.status}: {progress.selected} looked at, {progress.sent} sent, {progress.delivered} delivered, {progress.failed} failed,{' '}
          {progress.skipped} skipped
        </p>
      )}
      {failures.length === 0 ? (
        <p>No failed event in this window.</p>
      ) : (
        <FailuresTable label="Failed events" failures={failures} pick={{ has: (id) => picked.has(id), toggle }} retry event />
      )}
      {listing.data?.more && (
        <button type="button" class="secondary" onClick={() => setPages((n) => n + 1)}>
          Show {PAGE} more failed events
        </button>
      )}
    </Section>
  );
}
