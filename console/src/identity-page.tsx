/**
 * One identity: its facts, its external id and meta edited in place (sent
 * with the ETag read, so a save never undoes a change made since), and
 * delete, with its keys taken out of it first when asked.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiClient, ApiKey, Identity } from '../../client';
import { ErrorMessage, Field, NotReadYet, problemOf, type Problem } from './components';
import { fingerprint, when } from './format';
import { usePage } from './paging';
import { IdentityFields, parseMeta } from './identities';
import { MeterSection, meterOwnerOf } from './meters';

export function IdentityPage({ api, identityId, navigate }: { api: ApiClient; identityId: string; navigate: (hash: string) => void }) {
  const [identity, setIdentity] = useState<Identity | undefined>();
  const [entityTag, setEntityTag] = useState<string | undefined>();
  const [problem, setProblem] = useState<Problem>();

  const load = useCallback(async () => {
    try {
      const { data, error, response } = await api.GET('/functions/v1/get-identity', { params: { query: { identity_id: identityId } } });
      if (error || !data) return setProblem(problemOf(error, response));
      setIdentity(data.data);
      setEntityTag(response.headers.get('ETag') ?? undefined);
      setProblem(undefined);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  }, [api, identityId]);

  useEffect(() => {
    void load();
  }, [load]);

  if (!identity) {
    return <NotReadYet back="Identities" backTo="#/identities" problem={problem} />;
  }
  return (
    <main>
      <p>
        <a href="#/identities">← Identities</a>
      </p>
      <h1>{identity.external_id}</h1>
      <ErrorMessage problem={problem} />
      <dl class="facts">
        <dt>id</dt>
        <dd>
          <code>{identity.id}</code>
        </dd>
        <dt>keys</dt>
        <dd>{identity.key_count === 1 ? '1 key names it' : `${identity.key_count} keys name it`}</dd>
        <dt>meta</dt>
        <dd>
          <pre>{JSON.stringify(identity.meta, null, 2)}</pre>
        </dd>
        <dt>created</dt>
        <dd>{when(identity.created_at)}</dd>
        <dt>updated</dt>
        <dd>{when(identity.updated_at)}</dd>
      </dl>
      <IdentityKeys api={api} identity={identity} />
      <MeterSection key={identity.id} api={api} owner={meterOwnerOf(api, 'identity', identity, entityTag)} onChanged={load} />
      <EditIdentity key={identity.id} api={api} identity={identity} entityTag={entityTag} onSaved={load} />
      <DeleteIdentity api={api} identity={identity} onDeleted={() => navigate('#/identities')} />
    </main>
  );
}

/** The keys that name the identity (list-api-keys with identity_id; the first 100 of the team's keys that do). */
function IdentityKeys({ api, identity }: { api: ApiClient; identity: Identity }) {
  const { rows, problem } = usePage<ApiKey>(
    () => api.GET('/functions/v1/list-api-keys', { params: { query: { team_id: identity.team_id, identity_id: identity.id, limit: '100' } } }),
    [api, identity.team_id, identity.id, identity.key_count],
  );
  return (
    <section aria-labelledby="identity-keys-title">
      <h2 id="identity-keys-title">Keys</h2>
      <p>
        A key names this identity with <code>identity_id</code> <code>{identity.id}</code>, at create or in an update through the API.
      </p>
      <ErrorMessage problem={problem} />
      {rows === undefined ? (
        <p aria-live="polite">Loading…</p>
      ) : rows.length === 0 ? (
        <p>No key names it.</p>
      ) : (
        <ul class="identity-keys">
          {rows.map((key) => (
            <li key={key.id}>
              <a href={`#/keys/${key.id}`}>{key.name}</a> <span class="hint">{fingerprint(key)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** external_id and meta, saved with If-Match: a change made elsewhere since this page read the identity is refused (412) and said. */
function EditIdentity({ api, identity, entityTag, onSaved }: { api: ApiClient; identity: Identity; entityTag?: string; onSaved: () => Promise<void> }) {
  const [externalId, setExternalId] = useState(identity.external_id);
  const [metaJson, setMetaJson] = useState(JSON.stringify(identity.meta, null, 2));
  const [problem, setProblem] = useState<Problem>();
  const [saved, setSaved] = useState(false);

  const save = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setSaved(false);
    const parsed = parseMeta(metaJson);
    if ('problem' in parsed) return setProblem(parsed.problem);
    try {
      const { error, response } = await api.PATCH('/functions/v1/update-identity', {
        body: { identity_id: identity.id, external_id: externalId, meta: parsed.meta },
        params: { header: entityTag ? { 'If-Match': entityTag } : {} },
      });
      if (response.status === 412) return setProblem('Not saved: the identity was changed elsewhere after this page loaded. Reload the page to see it.');
      if (error) return setProblem(problemOf(error, response));
      // Said once the page shows the identity as saved.
      await onSaved();
      setSaved(true);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };

  return (
    <section aria-labelledby="edit-identity-title">
      <h2 id="edit-identity-title">Edit</h2>
      <form onSubmit={save} class="narrow">
        <IdentityFields
          prefix="edit"
          fields={{ externalId, setExternalId, metaJson, setMetaJson }}
          hints={{ meta: 'A JSON object of at most 4 KB; it replaces the meta whole' }}
        />
        <div class="actions">
          <button type="submit">Save identity</button>
        </div>
        {saved ? <p role="status">Saved.</p> : null}
      </form>
      <ErrorMessage problem={problem} />
    </section>
  );
}

/** Delete, confirmed by typing the external id; with "take its keys out" checked, keys that name it no longer do (else 409 while they do). */
function DeleteIdentity({ api, identity, onDeleted }: { api: ApiClient; identity: Identity; onDeleted: () => void }) {
  const [typed, setTyped] = useState('');
  const [detach, setDetach] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const remove = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    try {
      const { error, response } = await api.DELETE('/functions/v1/delete-identity', {
        body: { identity_id: identity.id, ...(detach ? { detach_keys: true } : {}) },
      });
      if (error) setProblem(problemOf(error, response));
      else onDeleted();
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };
  return (
    <section aria-labelledby="delete-identity-title" class="danger">
      <h2 id="delete-identity-title">Delete</h2>
      <p>The identity goes, and its external_id is free again. Its keys keep working, without an identity.</p>
      <form onSubmit={remove}>
        <Field id="delete-identity-confirm" label={`Type the external_id (${identity.external_id}) to confirm`}>
          <input id="delete-identity-confirm" autocomplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </Field>
        <label class="check">
          <input type="checkbox" checked={detach} onChange={() => setDetach(!detach)} /> Take its keys out of it first (detach_keys)
        </label>
        <button type="submit" class="danger" disabled={typed !== identity.external_id}>
          Delete identity
        </button>
      </form>
      <ErrorMessage problem={problem} />
    </section>
  );
}
