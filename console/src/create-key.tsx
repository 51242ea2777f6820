/**
 * Create a key: a form whose fields carry the API's own field names; the
 * value is shown once, with a copy button and the warning.
 */
import { useState } from 'preact/hooks';
import type { ApiClient } from '../../client';
import { EditableFields, ErrorMessage, SelectField, ValueOnce, problemOf, type Problem } from './components';
import { entries, fromUtcInput } from './format';
import type { Session } from './session';

export function CreateKey({ api, session }: { api: ApiClient; session: Session }) {
  const [form, setForm] = useState<CreateForm>({ ...EMPTY_FORM, environment: session.environment });
  const [problem, setProblem] = useState<Problem>();
  const [created, setCreated] = useState<{ id: string; name: string; key: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (name: keyof typeof form) => (event: Event) => setForm({ ...form, [name]: (event.currentTarget as HTMLInputElement).value });

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const body = requestOf(form, session.teamId);
    try {
      const { data, error, response } = await api.POST('/functions/v1/generate-api-key', { body });
      if (error || !data || !data.data.key) setProblem(problemOf(error, response));
      else setCreated({ id: data.data.id, name: data.data.name, key: data.data.key });
    } catch (failure) {
      setProblem(problemOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (created) return <Created created={created} />;

  return (
    <main class="narrow">
      <h1>Create a key</h1>
      <form onSubmit={submit}>
        <EditableFields
          prefix="create"
          form={form}
          set={set}
          isPublic={form.type === 'pk'}
          rateLimitHint="Requests per hour; empty: the plan’s limit"
          afterName={
            <>
              <SelectField
                id="create-type"
                label="type"
                hint="sk: secret, for servers. pk: public, for browsers, restricted by domains."
                value={form.type}
                onChange={set('type')}
                options={[
                  ['sk', 'sk'],
                  ['pk', 'pk'],
                ]}
              />
              <SelectField
                id="create-environment"
                label="environment"
                value={form.environment}
                onChange={set('environment')}
                options={[
                  ['live', 'live'],
                  ['test', 'test'],
                ]}
              />
            </>
          }
        />
        <ErrorMessage problem={problem} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
          <a href="#/keys">Cancel</a>
        </div>
      </form>
    </main>
  );
}

/** The form's fields, as the inputs hold them. */
interface CreateForm {
  name: string;
  type: 'sk' | 'pk';
  environment: Session['environment'];
  scopes: string;
  description: string;
  rate_limit: string;
  expires_at: string;
  domains: string;
  ip_whitelist: string;
  on_leak: string;
}

const EMPTY_FORM: Omit<CreateForm, 'environment'> = {
  name: '',
  type: 'sk',
  scopes: 'enc.tiles:read',
  description: '',
  rate_limit: '',
  expires_at: '',
  domains: '',
  ip_whitelist: '',
  on_leak: '',
};

/** The generate-api-key body the form asks for: empty optional fields left out. */
function requestOf(form: CreateForm, teamId: string) {
  return {
    name: form.name,
    type: form.type,
    environment: form.environment,
    team_id: teamId,
    scopes: entries(form.scopes),
    ...(form.description ? { description: form.description } : {}),
    ...(form.rate_limit ? { rate_limit: Number(form.rate_limit) } : {}),
    ...(form.expires_at ? { expires_at: fromUtcInput(form.expires_at) } : {}),
    ...(form.type === 'pk' ? { domains: entries(form.domains) } : {}),
    ip_whitelist: entries(form.ip_whitelist),
    ...(form.on_leak === 'disable' || form.on_leak === 'notify' ? { on_leak: form.on_leak as 'disable' | 'notify' } : {}),
  };
}

/** The new key's value, shown once. */
function Created({ created }: { created: { id: string; name: string; key: string } }) {
  return (
    <main class="narrow">
      <h1>Key created: {created.name}</h1>
      <ValueOnce value={created.key} label="The new key’s value" />
      <p>
        <a href={`#/keys/${created.id}`}>Open the key’s page</a> · <a href="#/keys">Back to the keys</a>
      </p>
    </main>
  );
}
