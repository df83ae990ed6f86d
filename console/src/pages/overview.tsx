import type { Destination, RouteResponse, Source } from '../../../shared/contract/client-types';
import { api } from '../api';
import { count, seconds } from '../figures';
import type { DestinationFunnel } from '../funnel-pipeline';
import { hrefOf } from '../route';
import { Sparkline } from '../sparkline';
import { ErrorBox, Scroll, Section, useLoad, when } from '../ui';

/** How many of the newest failures the page shows, across destinations. */
const NEWEST_FAILURES = 5;
/** The page reads everything again this often while it is open. */
const REFRESH_MS = 30_000;

/**
 * The last 24 hours as the delivery routes count them: whole hours of ingestion, this one and the 23 before
 * (24 in all, the current one still filling).
 */
const lastDay = () => ({ from: new Date(Date.now() - 23 * 3600_000).toISOString() });

/** Delivered of the events that were to be sent (delivered, aborted, failed in the transformation, retrying). */
export function successRate(f: DestinationFunnel): number | undefined {
  const attempted = f.delivered + f.aborted.total + f.transformFailed + f.retrying;
  return attempted > 0 ? (100 * f.delivered) / attempted : undefined;
}

interface Failure {
  at: string;
  messageId: string;
  status?: number;
  error: string;
  destination: Destination;
}

/** An hour's counts as the series routes answer them. */
type SourceBucket = RouteResponse<'GET /v2/sources/{id}/series'>['buckets'][number];
type DestinationBucket = RouteResponse<'GET /v2/destinations/{id}/series'>['buckets'][number];

/**
 * What the workspace did in the last 24 hours, read in one round: 3 lists (sources, destinations, alert
 * rules), then per source its funnel and its hourly series and, per destination, its funnel, its hourly series
 * and its outcomes (for its newest failures): 3 + 2·S + 3·D calls in all.
 */
async function loadOverview() {
  const window = lastDay();
  const [{ sources }, { destinations }, { rules }] = await Promise.all([
    api.call('GET /v2/sources'),
    api.call('GET /v2/destinations'),
    api.call('GET /v2/alert-rules'),
  ]);
  const [sourceRows, destinationRows] = await Promise.all([
    Promise.all(
      sources.map(async (source) => {
        const [delivery, series] = await Promise.all([
          api.call('GET /v2/sources/{id}/delivery', { params: { id: source.id }, query: window }),
          api.call('GET /v2/sources/{id}/series', { params: { id: source.id }, query: { window: '24h' } }),
        ]);
        return { source, delivery, hours: series.buckets };
      }),
    ),
    Promise.all(
      destinations.map(async (destination) => {
        const [funnel, series, outcomes] = await Promise.all([
          api.call('GET /v2/destinations/{id}/delivery', { params: { id: destination.id }, query: window }),
          api.call('GET /v2/destinations/{id}/series', { params: { id: destination.id }, query: { window: '24h' } }),
          api.call('GET /v2/destinations/{id}/outcomes', { params: { id: destination.id } }),
        ]);
        return { destination, funnel, hours: series.buckets, lastErrors: outcomes.lastErrors };
      }),
    ),
  ]);
  const since = sourceRows[0]?.delivery.window.from ?? destinationRows[0]?.funnel.window.from;
  const failures: Failure[] = destinationRows
    .flatMap(({ destination, lastErrors }) => lastErrors.map((e) => ({ ...e, destination })))
    .filter((e) => since === undefined || e.at >= since)
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, NEWEST_FAILURES);
  const firing = rules.filter((r) => r.enabled && r.state === 'firing');
  return { sourceRows, destinationRows, failures, firing, rules: rules.length, window: sourceRows[0]?.delivery.window ?? destinationRows[0]?.funnel.window };
}

/** The page after sign-in: each source's volume, each destination's success rate and p95, alerts firing, the newest failures. */
export function Overview() {
  const overview = useLoad(loadOverview, [], REFRESH_MS);
  const o = overview.data;
  return (
    <div>
      <ErrorBox error={overview.error} />
      {o?.window && (
        <p>
          The last 24 hours: events ingested from {when(o.window.from)} to {when(o.window.to)} (whole hours, the current one still filling), with each hour's
          counts as a sparkline.
        </p>
      )}
      {o && (
        <>
          <Section title="Alerts firing">
            {o.firing.length === 0 ? (
              <p data-testid="alerts-firing">
                No alert firing ({o.rules} {o.rules === 1 ? 'rule' : 'rules'}; <a href={hrefOf('alerts')}>alert rules</a>).
              </p>
            ) : (
              <ul aria-label="Alerts firing" data-testid="alerts-firing">
                {o.firing.map((r) => (
                  <li>
                    <a href={hrefOf('alerts')}>{r.name}</a> <span class="status-failed">firing</span> {r.reading ?? ''} <small>{when(r.evaluatedAt)}</small>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <Sources rows={o.sourceRows} />
          <Destinations rows={o.destinationRows} />
          <Failures failures={o.failures} />
        </>
      )}
    </div>
  );
}

function Sources({
  rows,
}: {
  rows: { source: Source; delivery: { received: number; stored: number; refused: { total: number }; duplicate: number }; hours: SourceBucket[] }[];
}) {
  return (
    <Section title="Sources">
      {rows.length === 0 ? (
        <p>
          No source yet: <a href={hrefOf('sources')}>create one</a> to get a write key.
        </p>
      ) : (
        <Scroll label="Sources, scrollable">
          <table aria-label="Sources">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Received</th>
                <th scope="col">Per hour</th>
                <th scope="col">Stored</th>
                <th scope="col">Refused</th>
                <th scope="col">Duplicates</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ source, delivery, hours }) => (
                <tr>
                  <th scope="row">
                    <a href={hrefOf('sources', source.id)}>{source.name}</a>
                    {!source.enabled && <small> (disabled)</small>}
                  </th>
                  <td data-testid={`source-received-${source.id}`}>{count(delivery.received)}</td>
                  <td>
                    <Sparkline
                      title={`${source.name}, events received per hour`}
                      testId={`source-hours-${source.id}`}
                      lines={[{ label: 'received', values: hours.map((h) => h.received), stroke: '#1a5fb4' }]}
                    />
                  </td>
                  <td>{count(delivery.stored)}</td>
                  <td>{count(delivery.refused.total)}</td>
                  <td>{count(delivery.duplicate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </Section>
  );
}

function Destinations({ rows }: { rows: { destination: Destination; funnel: DestinationFunnel; hours: DestinationBucket[] }[] }) {
  return (
    <Section title="Destinations">
      {rows.length === 0 ? (
        <p>
          No destination yet: <a href={hrefOf('destinations')}>add one</a>.
        </p>
      ) : (
        <Scroll label="Destinations, scrollable">
          <table aria-label="Destinations">
            <thead>
              <tr>
                <th scope="col">Destination</th>
                <th scope="col">Success rate</th>
                <th scope="col">Per hour</th>
                <th scope="col">Delivered</th>
                <th scope="col">Failed</th>
                <th scope="col">Retrying</th>
                <th scope="col">p95 latency</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ destination, funnel, hours }) => {
                const rate = successRate(funnel);
                return (
                  <tr>
                    <th scope="row">
                      <a href={hrefOf('delivery', destination.id)}>{destination.name}</a> <small>{destination.type}</small>
                    </th>
                    <td data-testid={`success-rate-${destination.id}`}>{rate === undefined ? '–' : `${rate.toFixed(1)} %`}</td>
                    <td>
                      <Sparkline
                        title={`${destination.name}, events delivered and failed per hour`}
                        testId={`destination-hours-${destination.id}`}
                        lines={[
                          { label: 'delivered', values: hours.map((h) => h.delivered), stroke: '#146c2e' },
                          { label: 'failed', values: hours.map((h) => h.failed), stroke: '#b3261e' },
                        ]}
                      />
                    </td>
                    <td>{count(funnel.delivered)}</td>
                    <td>{count(funnel.aborted.total + funnel.transformFailed)}</td>
                    <td>{count(funnel.retrying)}</td>
                    <td>{seconds(funnel.latencyMs.p95)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scroll>
      )}
    </Section>
  );
}

function Failures({ failures }: { failures: Failure[] }) {
  return (
    <Section title="Newest failures">
      {failures.length === 0 ? (
        <p>No event failed in the last 24 hours.</p>
      ) : (
        <Scroll label="Newest failures, scrollable">
          <table aria-label="Newest failures">
            <thead>
              <tr>
                <th scope="col">Failed</th>
                <th scope="col">Destination</th>
                <th scope="col">Message</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {failures.map((f) => (
                <tr>
                  <td>{when(f.at)}</td>
                  <td>{f.destination.name}</td>
                  <td>
                    <a href={hrefOf('delivery', f.destination.id, 'failures')}>{f.messageId}</a>
                  </td>
                  <td>
                    {f.status ?? ''} {f.error}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </Section>
  );
}
