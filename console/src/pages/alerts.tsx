import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Scroll, Section, useAction, useConfirm, useLoad, when } from '../ui';

type Kind = 'destination-success-rate' | 'destination-down' | 'destination-backlog' | 'source-silent';
type Channel = 'slack' | 'webhook' | 'email';
const CHANNELS: { type: Channel; label: string; field: string }[] = [
  { type: 'slack', label: 'a Slack channel (incoming webhook)', field: 'Slack webhook URL' },
  { type: 'webhook', label: 'a webhook', field: 'Webhook URL' },
  { type: 'email', label: 'an e-mail address (through SNS, when deployed)', field: 'E-mail address' },
];
const channelOf = (type: Channel, value: string) =>
  type === 'slack' ? { type, webhookUrl: value } : type === 'webhook' ? { type, url: value } : { type, address: value };

const KINDS: { kind: Kind; label: string }[] = [
  { kind: 'destination-success-rate', label: "A destination's success rate falls" },
  { kind: 'destination-down', label: 'A destination delivers nothing while events wait' },
  { kind: 'destination-backlog', label: 'Events parked for a retry pile up' },
  { kind: 'source-silent', label: 'A source receives nothing' },
];

/** Alert rules (a condition and a Slack, webhook or e-mail channel), their state, and the notifications they sent. */
export function Alerts() {
  const rules = useLoad(() => api.call('GET /v2/alert-rules'), [], 5000);
  const notes = useLoad(() => api.call('GET /v2/alert-notifications'), [], 5000);
  const destinations = useLoad(() => api.call('GET /v2/destinations'));
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('destination-success-rate');
  const [target, setTarget] = useState('');
  const [minutes, setMinutes] = useState(15);
  const [threshold, setThreshold] = useState(90);
  const [channel, setChannel] = useState<Channel>('slack');
  const [url, setUrl] = useState('');
  const create = useAction();
  const change = useAction();
  const targets = kind === 'source-silent' ? (sources.data?.sources ?? []) : (destinations.data?.destinations ?? []);
  const chosen = targets.some((t) => t.id === target) ? target : (targets[0]?.id ?? '');

  const condition = () => {
    if (kind === 'source-silent') return { kind, sourceId: chosen, minutes };
    if (kind === 'destination-down') return { kind, destinationId: chosen, minutes };
    if (kind === 'destination-backlog') return { kind, destinationId: chosen, measure: 'retrying' as const, above: threshold };
    return { kind, destinationId: chosen, belowPercent: threshold, minutes, minAttempts: 10 };
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = { name, condition: condition(), channel: channelOf(channel, url) };
    if (await create.run(() => api.call('POST /v2/alert-rules', { body }))) {
      setName('');
      await rules.reload();
    }
  };
  const toggle = async (id: string, enabled: boolean) => {
    await change.run(() => api.call('PATCH /v2/alert-rules/{id}', { params: { id }, body: { enabled } }));
    await rules.reload();
  };
  const confirm = useConfirm();
  const remove = (id: string, name: string, state: string) =>
    void confirm.ask({
      question: `Delete the alert rule “${name}” (${state} now)? It is no longer evaluated, and its notifications are no longer listed.`,
      confirm: 'Delete the alert rule',
      action: async () => {
        await change.run(() => api.call('DELETE /v2/alert-rules/{id}', { params: { id } }));
        await rules.reload();
      },
    });
  return (
    <div class="columns">
      {confirm.dialog}
      <form class="stack" onSubmit={submit} aria-label="New alert rule" noValidate>
        <h2>New alert rule</h2>
        <label for="alert-name">Name</label>
        <input id="alert-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="alert-kind">When</label>
        <select id="alert-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          {KINDS.map((k) => (
            <option value={k.kind}>{k.label}</option>
          ))}
        </select>
        <label for="alert-target">{kind === 'source-silent' ? 'Source' : 'Destination'}</label>
        <select id="alert-target" value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
          {targets.map((t) => (
            <option value={t.id}>{t.name}</option>
          ))}
        </select>
        {(kind === 'destination-success-rate' || kind === 'destination-backlog') && (
          <>
            <label for="alert-threshold">{kind === 'destination-backlog' ? 'More than this many events waiting' : 'Success rate below (%)'}</label>
            <input id="alert-threshold" type="number" value={threshold} onInput={(e) => setThreshold(Number(e.currentTarget.value))} />
          </>
        )}
        {kind !== 'destination-backlog' && (
          <>
            <label for="alert-minutes">Over minutes</label>
            <input id="alert-minutes" type="number" value={minutes} onInput={(e) => setMinutes(Number(e.currentTarget.value))} />
          </>
        )}
        <label for="alert-channel">Tell</label>
        <select id="alert-channel" value={channel} onChange={(e) => setChannel(e.currentTarget.value as Channel)}>
          {CHANNELS.map((c) => (
            <option value={c.type}>{c.label}</option>
          ))}
        </select>
        <label for="alert-url">{CHANNELS.find((c) => c.type === channel)!.field}</label>
        <input id="alert-url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <button type="submit" disabled={create.busy}>
          Create alert rule
        </button>
        <ErrorBox error={create.error} />
      </form>
      <div>
        <Section title="Alert rules">
          <ErrorBox error={rules.error ?? change.error} />
          <Scroll label="Alert rules, scrollable">
            <table aria-label="Alert rules">
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">State</th>
                  <th scope="col">Last reading</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {(rules.data?.rules ?? []).map((r) => (
                  <tr>
                    <td>
                      {r.name} <small>{r.condition.kind}</small>
                      {r.channel.type === 'email' && (
                        <small>
                          {' '}
                          mails {r.channel.address}
                          {r.channel.subscription === 'pending confirmation' ? ' (pending confirmation)' : ''}
                        </small>
                      )}
                    </td>
                    <td data-testid="alert-state">{r.enabled ? r.state : 'disabled'}</td>
                    <td>
                      {r.reading ?? ''} <small>{when(r.evaluatedAt)}</small>
                    </td>
                    <td>
                      <button type="button" onClick={() => void toggle(r.id, !r.enabled)}>
                        {r.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button type="button" aria-label={`Delete ${r.name}`} onClick={() => remove(r.id, r.name, r.enabled ? r.state : 'disabled')}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        </Section>
        <Section title="Notifications sent">
          <ErrorBox error={notes.error} />
          <Scroll label="Notifications, scrollable">
            <table aria-label="Notifications">
              <tbody>
                {(notes.data?.notifications ?? []).map((n) => (
                  <tr>
                    <td>{when(n.at)}</td>
                    <td>{n.ruleName}</td>
                    <td>{n.state}</td>
                    <td>{n.reading}</td>
                    <td>{n.delivery ? (n.delivery.error ?? `answered ${n.delivery.status}`) : 'sending'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        </Section>
      </div>
    </div>
  );
}
