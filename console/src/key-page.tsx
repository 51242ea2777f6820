/**
 * One key: its facts, 30-day usage, the transition after a roll (old vs new
 * value side by side), settings (edit, disable/enable), roll, audit trail
 * and delete (typed confirmation of the name).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiClient, ApiKey, AuditEvent, components } from '../../client';
import { ErrorMessage, NotReadYet, ValueOnce, problemOf, type Problem } from './components';
import { Delete, Roll } from './key-actions';
import { Settings } from './key-settings';
import { MeterSection, meterOwnerOf } from './meters';
import { count, fingerprint, list, noun, number, when } from './format';
import type { Session } from './session';
import { UsageChart } from './usage-chart';
import { VerificationChart } from './verification-chart';

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
  const { key, entityTag, usage, events, problem, load } = useKeyDetails(api, keyId);
  const [issued, setIssued] = useState<string | undefined>();

  if (!key) {
    return <NotReadYet back="Keys" backTo="#/keys" problem={problem} />;
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
      <KeyFacts apiKey={key} />

      <UsageSection usage={usage} />
      <OldValueCallers read={key} />
      <VerificationChart api={api} teamId={key.team_id} keyId={key.id} />

      <Roll api={api} apiKey={key} onRolled={(value) => (setIssued(value), void load())} />
      <Settings api={api} apiKey={key} entityTag={entityTag} onChanged={() => void load()} />
      {key.state === 'deleted' ? null : <MeterSection key={key.id} api={api} owner={meterOwnerOf(api, 'key', key, entityTag)} onChanged={load} />}
      <AuditTrail events={events} />
      <Delete api={api} apiKey={key} self={key.id === session.keyId} onDeleted={() => (key.id === session.keyId ? onSignOut() : navigate('#/keys'))} />
    </main>
  );
}

/** A key as its read answers it: while in a transition, with who still sends the old value. */
type KeyRead = components['schemas']['KeyReadResponse']['data'];

/** What is left of a span, in words: "3 d 4 h", "12 min", "ended". */
function timeLeft(iso: string, now = Date.now()): string {
  const minutes = Math.floor((Date.parse(iso) - now) / 60_000);
  if (minutes <= 0) return 'ended';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 24 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** Who still sends the old value (docs/verification.md): its last use, the last hour, its callers' networks, the time left. */
function OldValueCallers({ read }: { read: KeyRead }) {
  const old = read.old_value;
  if (!old) return null;
  return (
    <section class="transition" aria-labelledby="callers-title">
      <h3 id="callers-title">
        Old value …{old.last_four}: ends {when(old.ends_at)} ({timeLeft(old.ends_at)} left)
      </h3>
      <p>
        Last used {when(old.last_used_at)}; {count(old.uses_last_hour, 'use')} in the last hour. The new value …{read.current_value?.last_four} was last used{' '}
        {when(read.current_value?.last_used_at)}.
      </p>
      {old.sources.length === 0 ? (
        <p>No caller recorded since the roll.</p>
      ) : (
        <table data-testid="old-value-callers">
          <caption>Networks still sending the old value (at most 5, the most uses first)</caption>
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Uses</th>
              <th scope="col">Last use</th>
            </tr>
          </thead>
          <tbody>
            {old.sources.map((source) => (
              <tr key={source.source}>
                <td>{source.source}</td>
                <td>{number(source.uses)}</td>
                <td>{when(source.last_used_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
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

/** The key, its ETag, its 30-day usage and its latest audit events, read together; `load` reads them again. */
function useKeyDetails(api: ApiClient, keyId: string) {
  const [key, setKey] = useState<KeyRead | undefined>();
  // The key's ETag as read: Settings sends it as If-Match, so a save never undoes a change made since.
  const [entityTag, setEntityTag] = useState<string | undefined>();
  const [usage, setUsage] = useState<Usage | undefined>();
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [problem, setProblem] = useState<Problem>();

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
  return { key, entityTag, usage, events, problem, load };
}

/** What the key is: its id, value's fingerprint, kind, scopes, limit, dates and leak response. */
function KeyFacts({ apiKey: key }: { apiKey: ApiKey }) {
  return (
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
      {key.identity_id ? (
        <>
          <dt>identity</dt>
          <dd>
            <a href={`#/identities/${key.identity_id}`}>
              <code>{key.identity_id}</code>
            </a>
          </dd>
        </>
      ) : null}
      <dt>created</dt>
      <dd>{when(key.created_at)}</dd>
      <dt>expires_at</dt>
      <dd>{key.expires_at ? when(key.expires_at) : 'never'}</dd>
      <dt>on_leak</dt>
      <dd>{key.on_leak === 'disable' ? 'disable (a reported leak stops the key)' : 'notify (a reported leak is audited; the key keeps working)'}</dd>
    </dl>
  );
}

/** The key's requests in all and over 30 days, by day, and its transition after a roll. */
function UsageSection({ usage }: { usage: Usage | undefined }) {
  return (
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
  );
}
