/** A key's settings: edit its fields (sent with If-Match), disable or enable it. */
import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, ApiKey } from '../../client';
import { EditableFields, ErrorMessage, problemOf, type Problem } from './components';
import { entries, fromUtcInput, utcInputValue } from './format';

/** What a save refused with 412 says: the page's values stay in the form, so the change can be made again after a reload. */
const CHANGED_ELSEWHERE =
  'Not saved: the key was changed elsewhere after this page loaded. Reload the page to see the key as it is now, then make your change again.';

export function Settings({ api, apiKey, entityTag, onChanged }: { api: ApiClient; apiKey: ApiKey; entityTag: string | undefined; onChanged: () => void }) {
  const initial = formOf(apiKey);
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
    const changes = changesOf(form, initial);
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

/** The form's fields as the key has them. */
function formOf(apiKey: ApiKey) {
  return {
    name: apiKey.name,
    description: apiKey.description,
    scopes: apiKey.scopes.join(', '),
    rate_limit: String(apiKey.rate_limit),
    domains: apiKey.domains.join(', '),
    ip_whitelist: apiKey.ip_whitelist.join(', '),
    expires_at: utcInputValue(apiKey.expires_at),
    on_leak: apiKey.on_leak,
  };
}

/** The update-api-key fields the form changed from `initial`, in the API's form. */
function changesOf(form: ReturnType<typeof formOf>, initial: ReturnType<typeof formOf>): Record<string, unknown> {
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
  return changes;
}
