/**
 * Webhooks: the team's endpoints, a create form whose signing secret is
 * shown once, and an endpoint's page with its deliveries (status, attempt,
 * outcome), a test, a redelivery, a secret rotation, on/off and delete.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient, WebhookDelivery, WebhookEndpoint } from '../../client';
import { ErrorMessage, TextField, ValueOnce, problemOf, type Problem } from './components';
import { list, when } from './format';
import type { Session } from './session';
import { WEBHOOK_EVENT_TYPES } from '../../lambda/contract/webhooks';

/** The event types an endpoint may take (webhook.test always reaches the endpoint it is sent to). */
const EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');
type EventType = (typeof EVENT_TYPES)[number];

/** When an endpoint's page is read again after an action: its attempts run from the queue, usually within a second. */
const FOLLOW_UP_MS = [500, 1_500, 4_000];

const SECRET_KEPT = 'The service keeps it sealed, only to sign deliveries, and never shows it again.';

export function Webhooks({ api, session }: { api: ApiClient; session: Session }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | undefined>();
  const [problem, setProblem] = useState<Problem>();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [created, setCreated] = useState<{ id: string; secret: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let current = true;
    api
      .GET('/functions/v1/list-webhook-endpoints', { params: { query: { team_id: session.teamId, limit: '100' } } })
      .then(({ data, error, response }) => {
        if (!current) return;
        if (error || !data) setProblem(problemOf(error, response));
        else setEndpoints(data.data);
      })
      .catch((failure: unknown) => current && setProblem(problemOf(failure)));
    return () => {
      current = false;
    };
  }, [api, session.teamId, reload]);

  const toggle = (type: EventType) => setEvents(events.includes(type) ? events.filter((one) => one !== type) : [...events, type]);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const body = { team_id: session.teamId, url, ...(description ? { description } : {}), ...(events.length ? { events } : {}) };
      const { data, error, response } = await api.POST('/functions/v1/create-webhook-endpoint', { body });
      if (error || !data) setProblem(problemOf(error, response));
      // Null only when an Idempotency-Key replays an earlier answer, which this page never sends.
      else if (data.data.secret === null) setProblem(problemOf(new Error('The endpoint exists already; its secret was shown once. Rotate it for a new one.')));
      else {
        setCreated({ id: data.data.id, secret: data.data.secret });
        setUrl('');
        setDescription('');
        setEvents([]);
        setReload(reload + 1);
      }
    } catch (failure) {
      setProblem(problemOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main>
      <h1>Webhooks</h1>
      <p>
        Each endpoint receives the team’s key events, signed as <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specify. A failed delivery is
        retried for about 27 hours; an endpoint answering 410 or failing for 5 days is disabled.
      </p>
      {created ? (
        <>
          <ValueOnce value={created.secret} label="The new endpoint’s signing secret" keptAs={SECRET_KEPT} />
          <p>
            <a href={`#/webhooks/${created.id}`}>Open the endpoint</a>
          </p>
        </>
      ) : null}
      <ErrorMessage problem={problem} />
      <table>
        <caption>The team’s endpoints</caption>
        <thead>
          <tr>
            <th scope="col">url</th>
            <th scope="col">events</th>
            <th scope="col">state</th>
            <th scope="col">created_at</th>
          </tr>
        </thead>
        <tbody>
          {(endpoints ?? []).map((endpoint) => (
            <tr key={endpoint.id}>
              <td>
                <a href={`#/webhooks/${endpoint.id}`}>{endpoint.url}</a>
                {endpoint.description ? <span class="hint"> {endpoint.description}</span> : null}
              </td>
              <td>{endpoint.events.length === 0 ? 'every type' : list(endpoint.events)}</td>
              <td>{stateOf(endpoint)}</td>
              <td>{when(endpoint.created_at)}</td>
            </tr>
          ))}
          {endpoints && endpoints.length === 0 ? (
            <tr>
              <td colSpan={4}>No endpoint yet.</td>
            </tr>
          ) : null}
        </tbody>
      </table>

      <h2>Add an endpoint</h2>
      <form onSubmit={create} class="narrow">
        <TextField
          id="webhook-url"
          label="url"
          hint="https in AWS; locally http to 127.0.0.1 works too"
          required
          maxLength={2048}
          value={url}
          onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)}
        />
        <TextField
          id="webhook-description"
          label="description"
          maxLength={500}
          value={description}
          onInput={(event) => setDescription((event.currentTarget as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>events (none chosen: every type)</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type} class="check">
              <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} /> {type}
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </div>
      </form>
    </main>
  );
}

function stateOf(endpoint: WebhookEndpoint): string {
  if (!endpoint.is_active) return endpoint.disabled_reason ? `disabled: ${endpoint.disabled_reason}` : 'disabled';
  return endpoint.failing_since ? `failing since ${when(endpoint.failing_since)}` : 'active';
}

export function WebhookPage({ api, session, endpointId }: { api: ApiClient; session: Session; endpointId: string }) {
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | undefined>();
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>([]);
  const [problem, setProblem] = useState<Problem>();
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<string | undefined>();
  const [reload, setReload] = useState(0);
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => {
    let current = true;
    Promise.all([
      api.GET('/functions/v1/list-webhook-endpoints', { params: { query: { team_id: session.teamId, limit: '100' } } }),
      api.GET('/functions/v1/list-webhook-deliveries', { params: { query: { endpoint_id: endpointId, limit: '50' } } }),
    ])
      .then(([endpoints, attempts]) => {
        if (!current) return;
        if (endpoints.error || !endpoints.data) return setProblem(problemOf(endpoints.error, endpoints.response));
        if (attempts.error || !attempts.data) return setProblem(problemOf(attempts.error, attempts.response));
        // The list comes from the team index, which may lag a change just made: the newer of the two is kept.
        const listed = endpoints.data.data.find((one) => one.id === endpointId);
        setEndpoint((shown) => (shown && listed && shown.updated_at > listed.updated_at ? shown : listed));
        setDeliveries(attempts.data.data);
      })
      .catch((failure: unknown) => current && setProblem(problemOf(failure)));
    return () => {
      current = false;
    };
  }, [api, session.teamId, endpointId, reload]);

  // Attempts are made from the queue, a moment after the request that asked for them: the page is read again a few times after an action.
  const followUps = useRef<number[]>([]);
  useEffect(() => () => followUps.current.forEach((timer) => clearTimeout(timer)), []);

  /** Runs an action; its outcome in words in the live region, then the page read again (now, and as its attempts land). */
  const act = async (done: string, action: () => Promise<{ error?: unknown; response: Response }>) => {
    setProblem(undefined);
    setStatus('');
    try {
      const { error, response } = await action();
      if (error) setProblem(problemOf(error, response));
      else setStatus(done);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
    setReload((value) => value + 1);
    followUps.current.forEach((timer) => clearTimeout(timer));
    followUps.current = FOLLOW_UP_MS.map((wait) => window.setTimeout(() => setReload((value) => value + 1), wait));
  };

  const body = { endpoint_id: endpointId };
  const sendTest = () => act('A test event was sent.', () => api.POST('/functions/v1/send-test-webhook', { body }));
  const redeliver = (deliveryId: string) =>
    act('The event was sent again.', () => api.POST('/functions/v1/redeliver-webhook', { body: { delivery_id: deliveryId } }));
  const setActive = (isActive: boolean) =>
    act(isActive ? 'The endpoint is enabled.' : 'The endpoint is disabled.', async () => {
      const answer = await api.PATCH('/functions/v1/update-webhook-endpoint', { body: { endpoint_id: endpointId, is_active: isActive } });
      if (answer.data) setEndpoint(answer.data.data);
      return answer;
    });
  const rotate = () =>
    act('A new signing secret was made; the old one signs beside it for 24 hours.', async () => {
      const answer = await api.POST('/functions/v1/rotate-webhook-secret', { body });
      if (answer.data) setSecret(answer.data.data.secret);
      return answer;
    });
  const remove = () =>
    act('The endpoint was deleted.', async () => {
      const answer = await api.DELETE('/functions/v1/delete-webhook-endpoint', { body });
      if (!answer.error) location.hash = '#/webhooks';
      return answer;
    });

  return (
    <main>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <h1>Endpoint {endpoint ? endpoint.url : endpointId}</h1>
      <ErrorMessage problem={problem} />
      <p aria-live="polite" class="hint">
        {status}
      </p>
      {secret ? <ValueOnce value={secret} label="The new signing secret" keptAs={SECRET_KEPT} /> : null}
      {endpoint ? (
        <dl class="facts">
          <dt>id</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          <dt>events</dt>
          <dd>{endpoint.events.length === 0 ? 'every type' : list(endpoint.events)}</dd>
          <dt>state</dt>
          <dd>{stateOf(endpoint)}</dd>
          <dt>description</dt>
          <dd>{endpoint.description || '—'}</dd>
        </dl>
      ) : null}
      <div class="actions">
        <button type="button" onClick={sendTest} disabled={!endpoint?.is_active}>
          Send test event
        </button>
        <button type="button" class="secondary" onClick={() => setActive(!endpoint?.is_active)} disabled={!endpoint}>
          {endpoint?.is_active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" onClick={rotate} disabled={!endpoint}>
          Rotate secret
        </button>
        <button type="button" class="secondary" onClick={() => setReload(reload + 1)}>
          Refresh
        </button>
        {confirmDelete ? (
          <button type="button" class="danger" onClick={remove}>
            Delete for good
          </button>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirmDelete(true)} disabled={!endpoint}>
            Delete…
          </button>
        )}
      </div>
      <table>
        <caption>Deliveries, newest first (kept 30 days)</caption>
        <thead>
          <tr>
            <th scope="col">event</th>
            <th scope="col">attempt</th>
            <th scope="col">attempted_at</th>
            <th scope="col">status</th>
            <th scope="col">outcome</th>
            <th scope="col">duration</th>
            <th scope="col">
              <span class="visually-hidden">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id}>
              <td>
                {delivery.event_type} <code class="hint">{delivery.event_id}</code>
              </td>
              <td>{delivery.attempt}</td>
              <td>{when(delivery.attempted_at)}</td>
              <td>{delivery.status_code ?? delivery.error}</td>
              <td>
                {delivery.outcome}
                {delivery.next_attempt_at ? `, next ${when(delivery.next_attempt_at)}` : ''}
              </td>
              <td>{delivery.duration_ms} ms</td>
              <td>
                <button type="button" class="secondary" onClick={() => redeliver(delivery.id)} disabled={!endpoint?.is_active}>
                  Redeliver{' '}
                  <span class="visually-hidden">
                    {delivery.event_type} attempt {delivery.attempt}
                  </span>
                </button>
              </td>
            </tr>
          ))}
          {deliveries.length === 0 ? (
            <tr>
              <td colSpan={7}>No delivery yet.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </main>
  );
}
