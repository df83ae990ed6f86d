import { useState } from 'preact/hooks';
import type { RouteResponse } from '../../shared/contract/client-types';
import { StepEvents, type StepKey } from './funnel-steps';
import { count, seconds } from './figures';
import { percent, when } from './ui';
import './funnel.css';

export type DestinationFunnel = RouteResponse<'GET /v2/destinations/{id}/delivery'>;

/**
 * The steps an event routed to a destination ends in, in the order of the pipeline; every (event output,
 * destination) lands in exactly one, so that their counts add up to what was routed.
 */
export const STEPS: { key: StepKey; label: string; count: (f: DestinationFunnel) => number }[] = [
  { key: 'ruleFiltered', label: 'Stopped by a connection rule', count: (f) => f.ruleFiltered },
  { key: 'filtered', label: 'Dropped by the transformation', count: (f) => f.filtered },
  { key: 'transformFailed', label: 'Failed in the transformation', count: (f) => f.transformFailed },
  { key: 'suppressed', label: 'Suppressed (their user is under a regulation)', count: (f) => f.suppressed },
  { key: 'duplicate', label: 'Duplicates (their messageId seen before)', count: (f) => f.duplicate },
  { key: 'retrying', label: 'Retrying', count: (f) => f.retrying },
  { key: 'aborted', label: 'Aborted', count: (f) => f.aborted.total },
  { key: 'delivered', label: 'Delivered', count: (f) => f.delivered },
];

/**
 * A destination's funnel as a pipeline: routed, then each step its events ended in with its count and share of
 * what was routed, the steps that hold nothing folded into one line; each step opens onto its events.
 */
export function FunnelPipeline({ destinationId, funnel: f }: { destinationId: string; funnel: DestinationFunnel }) {
  // Outputs routed: events, and the outputs beyond the first of those the transformation fanned out.
  const routed = f.routed + f.expanded;
  const steps = STEPS.map((step) => ({ ...step, n: step.count(f) }));
  const held = steps.filter((s) => s.n > 0);
  const empty = steps.filter((s) => s.n === 0);
  return (
    <div class="funnel">
      <p>
        Events ingested from {when(f.window.from)} to {when(f.window.to)}. Each step says how many of the routed events ended there, and its share of them; open
        a step to see its events.
      </p>
      <ol class="funnel-steps" aria-label="Funnel">
        <li class="funnel-routed">
          <span class="step-label">Routed</span> <strong data-testid="step-routed">{count(routed)}</strong>
          {f.expanded > 0 && (
            <small>
              {' '}
              ({count(f.routed)} events and {count(f.expanded)} more outputs of events the transformation fanned out)
            </small>
          )}
        </li>
        {held.map((step) => (
          <li>
            <Step destinationId={destinationId} funnel={f} step={step.key} label={step.label} n={step.n} routed={routed} />
          </li>
        ))}
        {empty.length > 0 && (
          <li>
            <details class="funnel-empty">
              <summary data-testid="steps-empty">
                {empty.length} {empty.length === 1 ? 'step' : 'steps'} with nothing
              </summary>
              <ul>
                {empty.map((step) => (
                  <li>
                    <span class="step-label">{step.label}</span> <strong data-testid={`step-${step.key}`}>0</strong>
                  </li>
                ))}
              </ul>
            </details>
          </li>
        )}
      </ol>
      <p aria-label="Latency">
        Latency, ingestion to the vendor&apos;s 2xx: p50 <strong>{seconds(f.latencyMs.p50)}</strong>, p95 <strong>{seconds(f.latencyMs.p95)}</strong> (
        {count(f.latencyMs.delivered)} delivered)
      </p>
    </div>
  );
}

function Step({
  destinationId,
  funnel,
  step,
  label,
  n,
  routed,
}: {
  destinationId: string;
  funnel: DestinationFunnel;
  step: StepKey;
  label: string;
  n: number;
  routed: number;
}) {
  // A step's events are read when it is first opened, not with the page.
  const [opened, setOpened] = useState(false);
  const share = routed > 0 ? (100 * n) / routed : 0;
  return (
    <details class={`funnel-step step-${step}`} onToggle={(e) => e.currentTarget.open && setOpened(true)}>
      <summary>
        <span class="step-label">{label}</span> <strong data-testid={`step-${step}`}>{count(n)}</strong> <span class="step-share">{percent(n, routed)}</span>
        <span class="step-bar" aria-hidden="true">
          <span style={{ width: `${Math.min(100, share)}%` }} />
        </span>
      </summary>
      {opened && <StepEvents destinationId={destinationId} funnel={funnel} step={step} />}
    </details>
  );
}
