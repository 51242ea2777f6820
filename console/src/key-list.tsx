/** The team's keys: filters, a page at a time, each row a link to the key's page. */
import { useState } from 'preact/hooks';
import type { ApiClient, ApiKey } from '../../client';
import { ErrorMessage, SelectField } from './components';
import { PageNav, usePage } from './paging';
import { fingerprint, when } from './format';
import type { Session } from './session';

interface Filters {
  environment: '' | 'test' | 'live';
  type: '' | 'pk' | 'sk';
  state: '' | 'active' | 'in_transition' | 'disabled' | 'expired' | 'deleted';
  /** Keys per page. */
  limit: '10' | '20' | '50' | '100';
}

export function KeyList({ api, session }: { api: ApiClient; session: Session }) {
  const [filters, setFilters] = useState<Filters>({ environment: '', type: '', state: '', limit: '20' });
  // The cursors of the pages before this one (the first page has none), and this page's.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const { keys, next, problem } = useKeyPage(api, session.teamId, filters, cursors[cursors.length - 1]);

  const filter = (name: keyof Filters) => (event: Event) => {
    setFilters({ ...filters, [name]: (event.currentTarget as HTMLSelectElement).value });
    setCursors([undefined]);
  };

  return (
    <main>
      <div class="heading-row">
        <h1>Keys</h1>
        <a class="button" href="#/create">
          Create key
        </a>
      </div>
      <KeyFilters filters={filters} filter={filter} />
      <ErrorMessage problem={problem} />
      {keys === undefined ? (
        <p aria-live="polite">Loading…</p>
      ) : keys.length === 0 ? (
        // A request examines at most 1,000 of the team's keys: an empty page may still have more after it.
        <p>{next ? 'No key matches among those this page examined; Next page looks further.' : 'No keys match.'}</p>
      ) : (
        <KeyTable keys={keys} session={session} />
      )}
      <PageNav cursors={cursors} setCursors={setCursors} next={next} />
    </main>
  );
}

/** The page of keys at `cursor` under `filters` (paging.ts `usePage`). */
function useKeyPage(api: ApiClient, teamId: string, filters: Filters, cursor: string | undefined) {
  const { rows, next, problem } = usePage<ApiKey>(() => {
    const query = {
      team_id: teamId,
      limit: filters.limit,
      ...(filters.environment ? { environment: filters.environment } : {}),
      ...(filters.type ? { type: filters.type } : {}),
      ...(filters.state ? { state: filters.state } : {}),
      ...(cursor ? { cursor } : {}),
    };
    return api.GET('/functions/v1/list-api-keys', { params: { query } });
  }, [api, teamId, filters, cursor]);
  return { keys: rows, next, problem };
}

/** The list's filters: environment, type, state and page size. */
function KeyFilters({ filters, filter }: { filters: Filters; filter: (name: keyof Filters) => (event: Event) => void }) {
  return (
    <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filters">
      <SelectField
        id="filter-environment"
        label="environment"
        value={filters.environment}
        onChange={filter('environment')}
        options={[
          ['', 'all'],
          ['live', 'live'],
          ['test', 'test'],
        ]}
      />
      <SelectField
        id="filter-type"
        label="type"
        value={filters.type}
        onChange={filter('type')}
        options={[
          ['', 'all'],
          ['sk', 'sk (secret)'],
          ['pk', 'pk (public)'],
        ]}
      />
      <SelectField
        id="filter-state"
        label="state"
        value={filters.state}
        onChange={filter('state')}
        options={[
          ['', 'all'],
          ['active', 'active'],
          ['in_transition', 'in transition'],
          ['disabled', 'disabled'],
          ['expired', 'expired'],
          ['deleted', 'deleted (kept 90 days)'],
        ]}
      />
      <SelectField
        id="filter-limit"
        label="limit"
        value={filters.limit}
        onChange={filter('limit')}
        options={['10', '20', '50', '100'].map((size) => [size, `${size} per page`] as const)}
      />
    </form>
  );
}

/** A page of keys, newest first, each row a link to the key's page. */
function KeyTable({ keys, session }: { keys: ApiKey[]; session: Session }) {
  return (
    <table class="keys">
      <caption class="visually-hidden">The team’s keys, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Environment</th>
          <th scope="col">State</th>
          <th scope="col">Key</th>
          <th scope="col">Last used</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <td>
              <a href={`#/keys/${key.id}`}>{key.name}</a>
              {key.id === session.keyId ? <span class="badge">you</span> : null}
            </td>
            <td>{key.type}</td>
            <td>{key.environment}</td>
            <td>
              <span class={`state state-${key.state}`}>{key.state.replace('_', ' ')}</span>
            </td>
            <td>
              <code>{fingerprint(key)}</code>
            </td>
            <td>{when(key.last_used_at)}</td>
            <td>{when(key.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
