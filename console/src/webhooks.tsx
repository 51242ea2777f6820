/**
 * Webhooks: the team's endpoints and a create form whose signing secret is
 * shown once (an endpoint's own page: webhook-page.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, WebhookEndpoint } from '../../client';
import { ErrorMessage, TextField, ValueOnce, problemOf, type Problem } from './components';
import { list, when } from './format';
import type { Session } from './session';
import { WEBHOOK_EVENT_TYPES } from '../../lambda/contract/webhooks';

/** The event types an endpoint may take (webhook.test always reaches the endpoint it is sent to). */
const EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');
type EventType = (typeof EVENT_TYPES)[number];

export const SECRET_KEPT = 'The service keeps it sealed, only to sign deliveries, and never shows it again.';

export function Webhooks({ api, session }: { api: ApiClient; session: Session }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | undefined>();
  const [problem, setProblem] = useState<Problem>();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [created, setCreated] = useState<{ id: string; secret: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => listEndpoints(api, session.teamId, setEndpoints, setProblem), [api, session.teamId, reload]);

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
      <EndpointTable endpoints={endpoints} />

      <h2>Add an endpoint</h2>
      <AddEndpointForm form={{ url, setUrl, description, setDescription, events, toggle, busy }} onSubmit={create} />
    </main>
  );
}

export function stateOf(endpoint: WebhookEndpoint): string {
  if (!endpoint.is_active) return endpoint.disabled_reason ? `disabled: ${endpoint.disabled_reason}` : 'disabled';
  return endpoint.failing_since ? `failing since ${when(endpoint.failing_since)}` : 'active';
}

/** Reads the team's endpoints into `setEndpoints` (a problem into `setProblem`); returns the effect's clean-up, which drops a stale answer. */
function listEndpoints(api: ApiClient, teamId: string, setEndpoints: (endpoints: WebhookEndpoint[]) => void, setProblem: (problem: Problem) => void) {
  let current = true;
  api
    .GET('/functions/v1/list-webhook-endpoints', { params: { query: { team_id: teamId, limit: '100' } } })
    .then(({ data, error, response }) => {
      if (!current) return;
      if (error || !data) setProblem(problemOf(error, response));
      else setEndpoints(data.data);
    })
    .catch((failure: unknown) => current && setProblem(problemOf(failure)));
  return () => {
    current = false;
  };
}

/** The team's endpoints: url, events, state, created. */
function EndpointTable({ endpoints }: { endpoints: WebhookEndpoint[] | undefined }) {
  return (
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
  );
}

interface EndpointForm {
  url: string;
  setUrl: (url: string) => void;
  description: string;
  setDescription: (description: string) => void;
  events: EventType[];
  toggle: (type: EventType) => void;
  busy: boolean;
}

/** The new endpoint's url, description and event types. */
function AddEndpointForm({ form, onSubmit }: { form: EndpointForm; onSubmit: (event: Event) => void }) {
  const { url, setUrl, description, setDescription, events, toggle, busy } = form;
  return (
    <form onSubmit={onSubmit} class="narrow">
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
  );
}
