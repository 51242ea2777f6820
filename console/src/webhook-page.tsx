/**
 * A webhook endpoint's page: its deliveries (status, attempt, outcome), a
 * test, a redelivery, a secret rotation, on/off and delete.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient, WebhookDelivery, WebhookEndpoint } from '../../client';
import { ErrorMessage, ValueOnce, problemOf, type Problem } from './components';
import { list, when } from './format';
import type { Session } from './session';
import { SECRET_KEPT, stateOf } from './webhooks';

/** When an endpoint's page is read again after an action: its attempts run from the queue, usually within a second. */
const FOLLOW_UP_MS = [500, 1_500, 4_000];

export function WebhookPage({ api, session, endpointId }: { api: ApiClient; session: Session; endpointId: string }) {
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | undefined>();
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>([]);
  const [problem, setProblem] = useState<Problem>();
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<string | undefined>();
  const [reload, setReload] = useState(0);
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => readEndpoint(api, session.teamId, endpointId, { setEndpoint, setDeliveries, setProblem }), [api, session.teamId, endpointId, reload]);

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
      {endpoint ? <EndpointFacts endpoint={endpoint} /> : null}
      <EndpointActions
        endpoint={endpoint}
        actions={{ sendTest, setActive, rotate, remove, refresh: () => setReload(reload + 1) }}
        confirmDelete={confirmDelete}
        askToConfirm={() => setConfirmDelete(true)}
      />
      <DeliveryTable deliveries={deliveries} canRedeliver={endpoint?.is_active === true} redeliver={redeliver} />
    </main>
  );
}

interface EndpointSetters {
  setEndpoint: (update: (shown: WebhookEndpoint | undefined) => WebhookEndpoint | undefined) => void;
  setDeliveries: (deliveries: WebhookDelivery[]) => void;
  setProblem: (problem: Problem) => void;
}

/** Reads the endpoint (from the team's list) and its deliveries; returns the effect's clean-up, which drops a stale answer. */
function readEndpoint(api: ApiClient, teamId: string, endpointId: string, { setEndpoint, setDeliveries, setProblem }: EndpointSetters) {
  let current = true;
  Promise.all([
    api.GET('/functions/v1/list-webhook-endpoints', { params: { query: { team_id: teamId, limit: '100' } } }),
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
}

/** The endpoint's id, event types, state and description. */
function EndpointFacts({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
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
  );
}

/** The endpoint's deliveries, newest first, each with its redelivery. */
function DeliveryTable({
  deliveries,
  canRedeliver,
  redeliver,
}: {
  deliveries: WebhookDelivery[];
  canRedeliver: boolean;
  redeliver: (deliveryId: string) => void;
}) {
  return (
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
              <button type="button" class="secondary" onClick={() => redeliver(delivery.id)} disabled={!canRedeliver}>
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
  );
}

interface EndpointActionsOf {
  sendTest: () => void;
  setActive: (isActive: boolean) => void;
  rotate: () => void;
  remove: () => void;
  refresh: () => void;
}

/** A test event, on/off, a secret rotation, a refresh, and delete after a second click. */
function EndpointActions({
  endpoint,
  actions,
  confirmDelete,
  askToConfirm,
}: {
  endpoint: WebhookEndpoint | undefined;
  actions: EndpointActionsOf;
  confirmDelete: boolean;
  askToConfirm: () => void;
}) {
  return (
    <div class="actions">
      <button type="button" onClick={actions.sendTest} disabled={!endpoint?.is_active}>
        Send test event
      </button>
      <button type="button" class="secondary" onClick={() => actions.setActive(!endpoint?.is_active)} disabled={!endpoint}>
        {endpoint?.is_active ? 'Disable' : 'Enable'}
      </button>
      <button type="button" class="secondary" onClick={actions.rotate} disabled={!endpoint}>
        Rotate secret
      </button>
      <button type="button" class="secondary" onClick={actions.refresh}>
        Refresh
      </button>
      {confirmDelete ? (
        <button type="button" class="danger" onClick={actions.remove}>
          Delete for good
        </button>
      ) : (
        <button type="button" class="secondary" onClick={askToConfirm} disabled={!endpoint}>
          Delete…
        </button>
      )}
    </div>
  );
}
