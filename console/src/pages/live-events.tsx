import { useState } from 'preact/hooks';
import type { LiveEvent } from '../../../shared/contract/client-types';
import { api } from '../api';
import { ErrorBox, Json, Scroll, useLoad, when } from '../ui';

/**
 * A source's live events: newest first, refreshed every 2 s unless paused, filtered by type, event name and
 * user, each row opening the event as formatted JSON. Badges mark what Weir decided about an event: tracking
 * plan violations (`context.violationErrors`), dropped by the plan, refused at ingestion, a duplicate.
 */
export const REFRESH_MS = 2000;
const TYPES = ['track', 'page', 'screen', 'identify', 'group', 'alias'];

type LivePage = Awaited<ReturnType<typeof load>>;
const load = (id: string) => api.call('GET /v2/sources/{id}/live-events', { params: { id }, query: { limit: 50 } });

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const userOf = (e: LiveEvent): string => text(e.userId) || text(e.anonymousId);
/** An event's identity across refreshes, so an opened row stays open. */
const idOf = (e: LiveEvent): string => JSON.stringify([e.messageId, e.receivedAt, !!e.duplicate, !!e.refused, !!e.dropped]);
const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

function violationsOf(e: LiveEvent): number {
  const violations = objectOf(e.context)?.violationErrors;
  return Array.isArray(violations) ? violations.length : 0;
}

export function LiveEvents({ sourceId }: { sourceId: string }) {
  const [frozen, setFrozen] = useState<{ page: LivePage; at: string } | undefined>(undefined);
  const events = useLoad(() => load(sourceId), [sourceId, !!frozen], frozen ? undefined : REFRESH_MS);
  const [type, setType] = useState('');
  const [name, setName] = useState('');
  const [user, setUser] = useState('');
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const page = frozen?.page ?? events.data;
  const all = (page?.events ?? []) as LiveEvent[];
  const shown = all.filter(
    (e) =>
      (!type || e.type === type) &&
      (!name ||
        text(e.event ?? e.name)
          .toLowerCase()
          .includes(name.toLowerCase())) &&
      (!user || userOf(e).toLowerCase().includes(user.toLowerCase())),
  );
  const toggle = (id: string) => setOpen((ids) => (ids.has(id) ? new Set([...ids].filter((i) => i !== id)) : new Set([...ids, id])));
  const refused = page?.refused;
  return (
    <>
      <p class="hint" data-testid="live-state">
        {frozen ? `Paused: the events as of ${when(frozen.at)}.` : `Refreshes every ${REFRESH_MS / 1000} seconds while this page is open.`}{' '}
        <button
          type="button"
          class="secondary"
          disabled={!page}
          onClick={() => setFrozen(frozen || !events.data ? undefined : { page: events.data, at: new Date().toISOString() })}
        >
          {frozen ? 'Resume' : 'Pause'}
        </button>
      </p>
      <ErrorBox error={events.error} />
      {refused && refused.events > 0 && (
        <p class="warn" data-testid="refused-count">
          {refused.events} event{refused.events === 1 ? '' : 's'} refused at ingestion
          {refused.lastAt && (
            <>
              , the last at <time dateTime={refused.lastAt}>{when(refused.lastAt)}</time>
            </>
          )}
          . Those of the last 24 hours are listed below with their reason.
        </p>
      )}
      <div class="filters" role="search" aria-label="Filter live events">
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Event name
          <input type="search" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          User
          <input type="search" value={user} onInput={(e) => setUser(e.currentTarget.value)} />
        </label>
      </div>
      {shown.length < all.length && (
        <p class="hint" data-testid="live-filtered">
          Showing {shown.length} of the {all.length} latest events.
        </p>
      )}
      <Scroll label="Live events, scrollable">
        <table aria-label="Live events" class="live">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Type</th>
              <th scope="col">Event</th>
              <th scope="col">User</th>
              <th scope="col">Marks</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => {
              const id = idOf(e);
              return <EventRows key={id} event={e} open={open.has(id)} toggle={() => toggle(id)} />;
            })}
          </tbody>
        </table>
      </Scroll>
      {page && all.length === 0 && <p>No event in the last 24 hours.</p>}
    </>
  );
}

/** One live event's row (its time the button that opens it), its badges, and when opened a row below with the whole event as JSON. */
function EventRows({ event: e, open, toggle }: { event: LiveEvent; open: boolean; toggle: () => void }) {
  const refused = objectOf(e.refused);
  const duplicate = objectOf(e.duplicate);
  const violations = violationsOf(e);
  return (
    <>
      <tr class={refused ? 'refused' : undefined}>
        <td>
          <button type="button" class="link" aria-expanded={open} onClick={toggle}>
            <span aria-hidden="true">{open ? '▾' : '▸'} </span>
            {when(e.receivedAt)}
          </button>
        </td>
        <td>{text(e.type)}</td>
        <td>{text(e.event ?? e.name)}</td>
        <td>{userOf(e)}</td>
        <td>
          {violations > 0 && (
            <span class="badge warn-badge">
              {violations} violation{violations === 1 ? '' : 's'}
            </span>
          )}
          {e.dropped !== undefined && <span class="badge bad-badge">dropped by the tracking plan</span>}
          {refused && <span class="badge bad-badge">Refused: {text(refused.reason) || 'no reason given'}</span>}
          {duplicate && <span class="badge">duplicate of one received {when(duplicate.firstSeenAt)}</span>}
        </td>
      </tr>
      {open && (
        <tr class="expanded">
          <td colSpan={5}>
            <Json value={e} />
          </td>
        </tr>
      )}
    </>
  );
}
