/** What a key's page does to the key beyond its settings: roll its value, delete it (typed confirmation of the name). */
import { useState } from 'preact/hooks';
import type { ApiClient, ApiKey } from '../../client';
import { ErrorMessage, Field, problemOf, type Problem } from './components';
import { when } from './format';

type GraceMode = 'fixed' | 'first_use' | 'until_idle';

export function Roll({ api, apiKey, onRolled }: { api: ApiClient; apiKey: ApiKey; onRolled: (value: string) => void }) {
  const [grace, setGrace] = useState('7');
  const [mode, setMode] = useState<GraceMode>('fixed');
  const [minutes, setMinutes] = useState('60');
  const [immediately, setImmediately] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  if (apiKey.state === 'deleted') return null;
  const roll = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const byUse = mode === 'fixed' ? {} : { grace_mode: mode, grace_minutes: Number(minutes) };
      const body = immediately ? { key_id: apiKey.id, revoke_immediately: true } : { key_id: apiKey.id, grace_period_days: Number(grace), ...byUse };
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
          <Field id="roll-mode" label="grace_mode" hint="When the old value ends: at the deadline, or earlier once traffic has moved">
            <select
              id="roll-mode"
              aria-describedby="roll-mode-hint"
              value={mode}
              disabled={immediately}
              onChange={(e) => setMode(e.currentTarget.value as GraceMode)}
            >
              <option value="fixed">fixed: at grace_period_days</option>
              <option value="first_use">first_use: grace_minutes after the new value’s first use</option>
              <option value="until_idle">until_idle: once the new value is used, after grace_minutes without the old one</option>
            </select>
          </Field>
          {mode === 'fixed' || immediately ? null : (
            <Field id="roll-minutes" label="grace_minutes" hint="1 to 10,080 minutes; grace_period_days stays the latest end">
              <input
                id="roll-minutes"
                aria-describedby="roll-minutes-hint"
                type="number"
                min={1}
                max={10080}
                required
                value={minutes}
                onInput={(e) => setMinutes(e.currentTarget.value)}
              />
            </Field>
          )}
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

export function Delete({ api, apiKey, self, onDeleted }: { api: ApiClient; apiKey: ApiKey; self: boolean; onDeleted: () => void }) {
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
