/**
 * One key: its facts, 30-day usage, the transition after a roll (old vs new
 * value side by side), settings (edit, disable/enable), roll, audit trail
 * and delete (typed confirmation of the name).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiClient, ApiKey, AuditEvent, components } from '../../client';
import { EditableFields, ErrorMessage, Field, ValueOnce, problemOf, type Problem } from './components';
import { count, entries, fingerprint, fromUtcInput, list, noun, number, utcInputValue, when } from './format';
import type { Session } from './session';
import { UsageChart } from './usage-chart';

type Usage = components['schemas']['UsageResponse']['data'];

export function KeyPage({
  api,
  session,
  keyId,
  navigate,
  onSignOut,
}: {
  api: ApiClient;
  session: Session;
  keyId: string;
  navigate: (hash: string) => void;
  onSignOut: () => void;
}) {
  const [key, setKey] = useState<ApiKey | undefined>();
  // The key's ETag as read: Settings sends it as If-Match, so a save never undoes a change made since.
  const [entityTag, setEntityTag] = useState<string | undefined>();
  const [usage, setUsage] = useState<Usage | undefined>();
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [problem, setProblem] = useState<Problem>();
  const [issued, setIssued] = useState<string | undefined>();

  const load = useCallback(async () => {
    try {
      const [got, used, audit] = await Promise.all([
        api.GET('/functions/v1/get-api-key', { params: { query: { key_id: keyId } } }),
        api.GET('/functions/v1/get-api-key-usage', { params: { query: { key_id: keyId, days: '30' } } }),
        api.GET('/functions/v1/list-audit-events', { params: { query: { key_id: keyId, limit: '20' } } }),
      ]);
      if (got.error || !got.data) {
        setProblem(problemOf(got.error, got.response));
        return;
      }
      setKey(got.data.data);
      setEntityTag(got.response.headers.get('ETag') ?? undefined);
      if (used.data) setUsage(used.data.data);
      if (audit.data) setEvents(audit.data.data);
      const failed = [used, audit].find((answer) => answer.error);
      setProblem(failed ? problemOf(failed.error, failed.response) : undefined);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  }, [api, keyId]);

  useEffect(() => {
    void load();
  }, [load]);

  if (!key) {
    return (
      <main>
        <p>
          <a href="#/keys">← Keys</a>
        </p>
        <ErrorMessage problem={problem} />
        {problem ? null : <p aria-live="polite">Loading…</p>}
      </main>
    );
  }

  return (
    <main>
      <p>
        <a href="#/keys">← Keys</a>
      </p>
      <div class="heading-row">
        <h1>{key.name}</h1>
        <span class={`state state-${key.state}`}>{key.state.replace('_', ' ')}</span>
      </div>
      <ErrorMessage problem={problem} />
      {issued ? <ValueOnce value={issued} label="The new value" /> : null}
      <dl class="facts">
        <dt>id</dt>
        <dd>
          <code>{key.id}</code>
        </dd>
        <dt>key</dt>
        <dd>
          <code>{fingerprint(key)}</code>
        </dd>
        <dt>type</dt>
        <dd>{key.type}</dd>
        <dt>environment</dt>
        <dd>{key.environment}</dd>
        <dt>scopes</dt>
        <dd>{list(key.scopes)}</dd>
        <dt>rate_limit</dt>
        <dd>{count(key.rate_limit, 'request')} per hour</dd>
        <dt>last used</dt>
        <dd>{when(key.last_used_at)}</dd>
        <dt>created</dt>
        <dd>{when(key.created_at)}</dd>
        <dt>expires_at</dt>
        <dd>{key.expires_at ? when(key.expires_at) : 'never'}</dd>
        <dt>on_leak</dt>
        <dd>{key.on_leak === 'disable' ? 'disable (a reported leak stops the key)' : 'notify (a reported leak is audited; the key keeps working)'}</dd>
      </dl>

      <section aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        {usage ? (
          <>
            <p>
              {count(usage.total_requests, 'request')} in all, {number(usage.usage_last_30_days)} in the last 30 days.
            </p>
            <UsageChart daily={usage.daily} />
            {usage.transition ? <Transition transition={usage.transition} /> : null}
          </>
        ) : (
          <p>Loading…</p>
        )}
      </section>

      <Roll api={api} apiKey={key} onRolled={(value) => (setIssued(value), void load())} />
      <Settings api={api} apiKey={key} entityTag={entityTag} onChanged={() => void load()} />
      <AuditTrail events={events} />
      <Delete api={api} apiKey={key} self={key.id === session.keyId} onDeleted={() => (key.id === session.keyId ? onSignOut() : navigate('#/keys'))} />
    </main>
  );
}

function Transition({ transition }: { transition: NonNullable<Usage['transition']> }) {
  return (
    <section class="transition" aria-labelledby="transition-title">
      <h3 id="transition-title">Transition: both values work until {when(transition.transition_ends_at)}</h3>
      <div class="side-by-side">
        <div class="figure">
          <span class="number" data-testid="old-value-requests">
            {number(transition.old_value_requests)}
          </span>
          <span>{noun(transition.old_value_requests, 'request')} with the old value</span>
        </div>
        <div class="figure">
          <span class="number" data-testid="new-value-requests">
            {number(transition.new_value_requests)}
          </span>
          <span>{noun(transition.new_value_requests, 'request')} with the new value</span>
        </div>
      </div>
      <p class="hint">When the old value is no longer used, its callers have moved to the new one.</p>
    </section>
  );
}

function Roll({ api, apiKey, onRolled }: { api: ApiClient; apiKey: ApiKey; onRolled: (value: string) => void }) {
  const [grace, setGrace] = useState('7');
  const [immediately, setImmediately] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  if (apiKey.state === 'deleted') return null;
  const roll = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const body = immediately ? { key_id: apiKey.id, revoke_immediately: true } : { key_id: apiKey.id, grace_period_days: Number(grace) };
      const { data, error, response } = await api.POST('/functions/v1/regenerate-api-key', { body });
      if (error || !data?.new_key) setProblem(problemOf(error, response));
      else onRolled(data.new_key);
    } catch (failure) {
      setProblem(problemOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="roll-title">
      <h2 id="roll-title">Roll</h2>
      {apiKey.state === 'in_transition' ? (
        <p>In a transition until {when(apiKey.transition_ends_at)}: it can be rolled again once the old value has expired.</p>
      ) : (
        <form onSubmit={roll} class="inline">
          <Field id="roll-grace" label="grace_period_days" hint="How long the old value keeps working (1 to 30 days)">
            <select id="roll-grace" aria-describedby="roll-grace-hint" value={grace} disabled={immediately} onChange={(e) => setGrace(e.currentTarget.value)}>
              {Array.from({ length: 30 }, (_, i) => String(i + 1)).map((days) => (
                <option key={days} value={days}>
                  {days} {days === '1' ? 'day' : 'days'}
                </option>
              ))}
            </select>
          </Field>
          <div class="field checkbox">
            <input id="roll-now" type="checkbox" checked={immediately} onChange={(e) => setImmediately(e.currentTarget.checked)} />
            <label for="roll-now">revoke_immediately (the old value stops working now)</label>
          </div>
          <button type="submit" disabled={busy}>
            {busy ? 'Rolling…' : 'Roll key'}
          </button>
        </form>
      )}
      <ErrorMessage problem={problem} />
    </section>
  );
}

/** What a save refused with 412 says: the page's values stay in the form, so the change can be made again after a reload. */
const CHANGED_ELSEWHERE =
  'Not saved: the key was changed elsewhere after this page loaded. Reload the page to see the key as it is now, then make your change again.';

function Settings({ api, apiKey, entityTag, onChanged }: { api: ApiClient; apiKey: ApiKey; entityTag: string | undefined; onChanged: () => void }) {
  const initial = {
    name: apiKey.name,
    description: apiKey.description,
    scopes: apiKey.scopes.join(', '),
    rate_limit: String(apiKey.rate_limit),
    domains: apiKey.domains.join(', '),
    ip_whitelist: apiKey.ip_whitelist.join(', '),
    expires_at: utcInputValue(apiKey.expires_at),
    on_leak: apiKey.on_leak,
  };
  const [form, setForm] = useState(initial);
  const [problem, setProblem] = useState<Problem>();
  const [saved, setSaved] = useState('');
  useEffect(() => setForm(initial), [apiKey.updated_at]);
  if (apiKey.state === 'deleted') return null;
  const set = (name: keyof typeof form) => (event: Event) => setForm({ ...form, [name]: (event.currentTarget as HTMLInputElement).value });

  // `guarded`: sent with If-Match. A save is (its values come from the page's view of the key); disable and enable are not (each says the one value wanted).
  const send = async (body: Record<string, unknown>, done: string, guarded: boolean) => {
    setProblem(undefined);
    setSaved('');
    try {
      const { error, response } = await api.PATCH('/functions/v1/update-api-key', {
        params: { header: guarded && entityTag ? { 'If-Match': entityTag } : {} },
        body: { key_id: apiKey.id, ...body },
      });
      if (error) setProblem(response.status === 412 ? CHANGED_ELSEWHERE : problemOf(error, response));
      else {
        setSaved(done);
        onChanged();
      }
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };

  const save = (event: Event) => {
    event.preventDefault();
    const changes: Record<string, unknown> = {};
    if (form.name !== initial.name) changes.name = form.name;
    if (form.description !== initial.description) changes.description = form.description;
    if (form.scopes !== initial.scopes) changes.scopes = entries(form.scopes);
    if (form.rate_limit !== initial.rate_limit) changes.rate_limit = Number(form.rate_limit);
    if (form.domains !== initial.domains) changes.domains = entries(form.domains);
    if (form.ip_whitelist !== initial.ip_whitelist) changes.ip_whitelist = entries(form.ip_whitelist);
    // Emptied: the key no longer expires (the API's null).
    if (form.expires_at !== initial.expires_at) changes.expires_at = form.expires_at ? fromUtcInput(form.expires_at) : null;
    if (form.on_leak !== initial.on_leak) changes.on_leak = form.on_leak;
    if (Object.keys(changes).length === 0) {
      setProblem('Nothing to save: no field was changed.');
      return;
    }
    void send(changes, 'Saved.', true);
  };

  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div class="actions">
        {apiKey.is_active ? (
          <button
            type="button"
            class="secondary"
            onClick={() => void send({ is_active: false }, 'Disabled: every value of the key is refused until it is enabled.', false)}
          >
            Disable key
          </button>
        ) : (
          <button type="button" onClick={() => void send({ is_active: true }, 'Enabled.', false)}>
            Enable key
          </button>
        )}
      </div>
      <form onSubmit={save}>
        <EditableFields prefix="edit" form={form} set={set} isPublic={apiKey.type === 'pk'} rateLimitHint="Requests per hour" />
        <button type="submit">Save settings</button>
      </form>
      <ErrorMessage problem={problem} />
      <p aria-live="polite" class="hint">
        {saved}
      </p>
    </section>
  );
}

function AuditTrail({ events }: { events: AuditEvent[] }) {
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit trail</h2>
      {events.length === 0 ? (
        <p>No events.</p>
      ) : (
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">By key</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.event_id}>
                <td>{when(event.occurred_at)}</td>
                <td>{event.event_type}</td>
                <td>
                  <code>{event.actor.key_id ?? '—'}</code>
                </td>
                <td>{event.actor.source_ip ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Delete({ api, apiKey, self, onDeleted }: { api: ApiClient; apiKey: ApiKey; self: boolean; onDeleted: () => void }) {
  const [typed, setTyped] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<Problem>();
  if (apiKey.state === 'deleted') return <p>This key was deleted on {when(apiKey.deleted_at)}.</p>;
  const remove = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    try {
      const { error, response } = await api.DELETE('/functions/v1/delete-api-key', {
        body: { key_id: apiKey.id, confirm_deletion: true, ...(reason ? { reason } : {}) },
      });
      if (error) setProblem(problemOf(error, response));
      else onDeleted();
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };
  return (
    <section aria-labelledby="delete-title" class="danger">
      <h2 id="delete-title">Delete</h2>
      <p>Every value of the key stops working at once, for good.{self ? ' This is the key you signed in with: you will be signed out.' : ''}</p>
      <form onSubmit={remove}>
        <Field id="delete-confirm" label={`Type the key’s name (${apiKey.name}) to confirm`}>
          <input id="delete-confirm" autocomplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </Field>
        <Field id="delete-reason" label="reason" hint="Kept in the audit trail">
          <input id="delete-reason" aria-describedby="delete-reason-hint" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="danger" disabled={typed !== apiKey.name}>
          Delete key
        </button>
      </form>
      <ErrorMessage problem={problem} />
    </section>
  );
}
