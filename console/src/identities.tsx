/**
 * Identities: the team's customers (a user, an organisation) named by the
 * platform's own id, a page at a time or found by `external_id`, and a form
 * that creates one (an identity's own page: identity-page.tsx).
 */
import { useState } from 'preact/hooks';
import type { ApiClient, Identity } from '../../client';
import { ErrorMessage, TextField, problemOf, type Problem } from './components';
import { when } from './format';
import { PageNav, usePage } from './paging';
import type { Session } from './session';

/** Identities per page. */
const PAGE = '20';

export function Identities({ api, session }: { api: ApiClient; session: Session }) {
  const [search, setSearch] = useState('');
  const [found, setFound] = useState('');
  // The cursors of the pages before this one (the first page has none), and this page's.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [reload, setReload] = useState(0);
  const { identities, next, problem } = useIdentityPage(api, session.teamId, found, cursors[cursors.length - 1], reload);

  const find = (event: Event) => {
    event.preventDefault();
    setFound(search.trim());
    setCursors([undefined]);
  };

  return (
    <main>
      <h1>Identities</h1>
      <p>
        An identity is a customer of your platform, named by your own id (<code>external_id</code>). Its keys name it with <code>identity_id</code>, and a valid
        key’s verification answers its <code>meta</code>.
      </p>
      <form class="filters" onSubmit={find} aria-label="Find an identity">
        <TextField
          id="identity-search"
          label="external_id"
          hint="Empty: every identity"
          maxLength={255}
          value={search}
          onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)}
        />
        <div class="actions">
          <button type="submit">Find</button>
        </div>
      </form>
      <ErrorMessage problem={problem} />
      {identities === undefined ? <p aria-live="polite">Loading…</p> : <IdentityTable identities={identities} />}
      {found ? null : <PageNav cursors={cursors} setCursors={setCursors} next={next} />}
      <h2>Create an identity</h2>
      <CreateIdentity api={api} session={session} onCreated={() => setReload(reload + 1)} />
    </main>
  );
}

/** A page of the team's identities, or the one with `externalId` (paging.ts `usePage`). */
function useIdentityPage(api: ApiClient, teamId: string, externalId: string, cursor: string | undefined, reload: number) {
  const { rows, next, problem } = usePage<Identity>(() => {
    const query = { team_id: teamId, limit: PAGE, ...(externalId ? { external_id: externalId } : {}), ...(cursor ? { cursor } : {}) };
    return api.GET('/functions/v1/list-identities', { params: { query } });
  }, [api, teamId, externalId, cursor, reload]);
  return { identities: rows, next, problem };
}

/** The identities: external_id (a link to the page), meta, created_at. */
function IdentityTable({ identities }: { identities: Identity[] }) {
  return (
    <table class="identities">
      <caption>The team’s identities</caption>
      <thead>
        <tr>
          <th scope="col">external_id</th>
          <th scope="col">meta</th>
          <th scope="col">created_at</th>
        </tr>
      </thead>
      <tbody>
        {identities.map((identity) => (
          <tr key={identity.id}>
            <td>
              <a href={`#/identities/${identity.id}`}>{identity.external_id}</a>
            </td>
            <td>
              <code>{metaText(identity.meta, 80)}</code>
            </td>
            <td>{when(identity.created_at)}</td>
          </tr>
        ))}
        {identities.length === 0 ? (
          <tr>
            <td colSpan={3}>No identity matches.</td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

/** `meta` as one line of JSON, cut at `max` characters. */
export function metaText(meta: Record<string, unknown>, max: number): string {
  const text = JSON.stringify(meta);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `text` as a meta object, or the reason it is not one. */
export function parseMeta(text: string): { meta: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { meta: {} };
  try {
    const meta: unknown = JSON.parse(text);
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) return { meta: meta as Record<string, unknown> };
  } catch {
    // reported below
  }
  return { problem: 'meta must be a JSON object, such as {"plan": "free"}.' };
}

/** The create form: external_id and meta (JSON). */
function CreateIdentity({ api, session, onCreated }: { api: ApiClient; session: Session; onCreated: () => void }) {
  const [externalId, setExternalId] = useState('');
  const [metaJson, setMetaJson] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const [created, setCreated] = useState<Identity | undefined>();
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    const parsed = parseMeta(metaJson);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setBusy(true);
    try {
      const body = { team_id: session.teamId, external_id: externalId, meta: parsed.meta };
      const { data, error, response } = await api.POST('/functions/v1/create-identity', { body });
      if (error || !data) return setProblem(problemOf(error, response));
      setCreated(data.data);
      setExternalId('');
      setMetaJson('');
      onCreated();
    } catch (failure) {
      setProblem(problemOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={create} class="narrow">
      {created ? (
        <p role="status">
          Created <a href={`#/identities/${created.id}`}>{created.external_id}</a>.
        </p>
      ) : null}
      <ErrorMessage problem={problem} />
      <IdentityFields
        prefix="identity"
        fields={{ externalId, setExternalId, metaJson, setMetaJson }}
        hints={{
          externalId: 'Your own id of the customer, unique in the team (at most 255 characters)',
          meta: 'A JSON object of at most 4 KB, answered with every valid verification of its keys, e.g. {"plan": "free"}',
        }}
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create identity'}
        </button>
      </div>
    </form>
  );
}

/** An identity's form fields as text, and their setters. */
export interface IdentityText {
  externalId: string;
  setExternalId: (value: string) => void;
  metaJson: string;
  setMetaJson: (value: string) => void;
}

/** The fields a create sets and an edit changes, labelled with the API's names (ids `<prefix>-external-id`, `<prefix>-meta`). */
export function IdentityFields({ prefix, fields, hints }: { prefix: string; fields: IdentityText; hints: { externalId?: string; meta: string } }) {
  return (
    <>
      <TextField
        id={`${prefix}-external-id`}
        label="external_id"
        hint={hints.externalId}
        required
        maxLength={255}
        value={fields.externalId}
        onInput={(event) => fields.setExternalId((event.currentTarget as HTMLInputElement).value)}
      />
      <TextField
        id={`${prefix}-meta`}
        label="meta"
        hint={hints.meta}
        multiline
        value={fields.metaJson}
        onInput={(event) => fields.setMetaJson((event.currentTarget as HTMLTextAreaElement).value)}
      />
    </>
  );
}
