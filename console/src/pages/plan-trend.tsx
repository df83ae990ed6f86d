import type { RouteResponse } from '../../../shared/contract/client-types';
import { api } from '../api';
import { SeriesChart, type SeriesAnswer, type SeriesLine, type SeriesWindow } from '../series-chart';
import { ErrorBox, Scroll, Section, useLoad, when } from '../ui';

type PlanSeries = RouteResponse<'GET /v2/tracking-plans/{id}/series'>;
type Violation = RouteResponse<'GET /v2/tracking-plans/{id}/violations'>['events'][number]['violations'][number];

const VIOLATION_LINES = [
  { type: 'Required-Missing', stroke: '#b45309' },
  { type: 'Datatype-Mismatch', stroke: '#7c3aed' },
  { type: 'Additional-Properties', stroke: '#0e7490' },
  { type: 'Unplanned-Event', stroke: '#be185d' },
  { type: 'Unknown-Violation', stroke: '#4b5563' },
] as const;

/** The plan's counts per bucket, and each violation type's, as lines of the series chart (a bucket's % are of its validated events). */
const PLAN_LINES: SeriesLine[] = [
  { name: 'withViolations', label: 'with violations', stroke: '#b91c1c' },
  { name: 'dropped', label: 'dropped', stroke: '#1f2937' },
  { name: 'validated', label: 'valid', stroke: '#15803d' },
  ...VIOLATION_LINES.map((v) => ({ name: v.type, label: v.type, stroke: v.stroke })),
];

/** The series answer with each violation type's count beside the others, as the chart reads a bucket. */
function flat(answer: PlanSeries): SeriesAnswer {
  return {
    window: answer.window,
    buckets: answer.buckets.map(({ violations, ...counts }) => ({
      ...counts,
      ...Object.fromEntries(VIOLATION_LINES.map((v) => [v.type, violations[v.type] ?? 0])),
    })),
  };
}

/** A plan over time: its violations per bucket (the series chart the sources and destinations use) and its newest offending events. */
export function PlanTrend({ id }: { id: string }) {
  return (
    <>
      <Section title="Violations over time">
        <SeriesChart
          title="Events validated"
          lines={PLAN_LINES}
          whole={(b) => Number(b.total ?? 0)}
          load={async (window: SeriesWindow) => flat(await api.call('GET /v2/tracking-plans/{id}/series', { params: { id }, query: { window } }))}
        />
      </Section>
      <OffendingEvents id={id} />
    </>
  );
}

const violationText = (v: Violation) => `${v.type}: ${v.message}`;

/** The newest events with violations, newest first, read again every 15 s. */
function OffendingEvents({ id }: { id: string }) {
  const samples = useLoad(() => api.call('GET /v2/tracking-plans/{id}/violations', { params: { id }, query: {} }), [id], 15_000);
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const nameOf = (sourceId: string) => (sources.data ? (sources.data.sources.find((s) => s.id === sourceId)?.name ?? 'a deleted source') : '');
  const events = samples.data?.events ?? [];
  return (
    <Section title="Sample offending events">
      <ErrorBox error={samples.error ?? sources.error} />
      {samples.data && (
        <p class="hint">
          The newest {events.length} events with violations, newest first, among the last day's requests of the sources held to this plan (
          {samples.data.scanned.parts} stored requests read).
        </p>
      )}
      {samples.data && events.length === 0 ? (
        <p>No event with violations.</p>
      ) : (
        <Scroll label="Sample offending events, scrollable">
          <table aria-label="Sample offending events">
            <thead>
              <tr>
                {['Received', 'Event', 'Source', 'Violations', 'Message id'].map((h) => (
                  <th scope="col">{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr>
                  <td>
                    <time dateTime={e.receivedAt}>{when(e.receivedAt)}</time>
                  </td>
                  <td>
                    {e.type}
                    {e.event ? `: ${e.event}` : ''}
                    {e.dropped && (
                      <>
                        {' '}
                        <span class="badge bad-badge">dropped by the plan</span>
                      </>
                    )}
                  </td>
                  <td>{nameOf(e.sourceId)}</td>
                  <td>
                    <ul>
                      {e.violations.map((v) => (
                        <li>{violationText(v)}</li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <code>{e.messageId}</code>
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
