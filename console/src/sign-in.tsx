/**
 * Sign in with a manager key: the value is checked with the verify endpoint
 * (which names the key's team and environment) and must hold `keys.manage`.
 */
import { useState } from 'preact/hooks';
import { ErrorMessage, Field, problemOf, type Problem } from './components';
import { apiFor, type Session } from './session';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = value.trim();
    if (key === '') {
      setProblem('Paste a manager key (a key with the keys.manage scope) into the API key field.');
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      const { data, error, response } = await apiFor(() => undefined).POST('/functions/v1/verify-api-key', { body: { key, scope: 'keys.manage' } });
      if (error || !data) {
        setProblem(problemOf(error, response));
      } else if (!data.valid || !data.key) {
        const reasons: Record<string, string> = {
          NOT_FOUND: 'This is not a valid API key.',
          REVOKED: 'This key value has been revoked.',
          INACTIVE: 'This key is disabled.',
          EXPIRED: 'This key has expired.',
          SCOPE_DENIED: 'This key cannot manage keys: it does not hold the keys.manage scope.',
          IP_NOT_ALLOWED: 'This key may not be used from this address.',
          ORIGIN_NOT_ALLOWED: 'This key may not be used from this page.',
          RATE_LIMITED: 'This key is over its hourly rate limit. Try again later.',
        };
        setProblem(reasons[data.code] ?? `The key was refused (${data.code}).`);
      } else {
        onSignedIn({ key, keyId: data.key.id, teamId: data.key.team_id, environment: data.key.environment });
      }
    } catch (failure) {
      setProblem(problemOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="narrow">
      <h1>Sign in</h1>
      <p>
        Use a secret key of your team that holds the <code>keys.manage</code> scope. It stays in this browser tab only and is forgotten when you sign out or
        close the tab.
      </p>
      <form onSubmit={submit}>
        <Field id="api-key" label="API key">
          <input id="api-key" type="password" autocomplete="off" spellcheck={false} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </Field>
        <ErrorMessage problem={problem} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
