/**
 * The key console: sign in with a manager key, then the team's keys, a
 * key's page, the create form, the team's identities and webhooks. Hash routes
 * (`#/keys`, `#/keys/<id>`, `#/create`, `#/identities`, `#/identities/<id>`,
 * `#/webhooks`, `#/webhooks/<id>`, `#/analytics`) so
 * the static files need no server-side routing.
 */
import { render } from 'preact';
import './styles.css';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { CreateKey } from './create-key';
import { KeyList } from './key-list';
import { KeyPage } from './key-page';
import { apiFor, saveSession, savedSession, signOut, type Session } from './session';
import { SignIn } from './sign-in';
import { Webhooks } from './webhooks';
import { WebhookPage } from './webhook-page';
import { Identities } from './identities';
import { IdentityPage } from './identity-page';
import { TeamAnalytics } from './team-analytics';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/keys');
  useEffect(() => {
    const changed = () => setHash(location.hash || '#/keys');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function App() {
  const [session, setSession] = useState<Session | undefined>(savedSession);
  const hash = useHash();
  const api = useMemo(() => apiFor(() => session?.key), [session]);

  // Move focus to the new view's heading, so keyboard and screen-reader users land on it.
  useEffect(() => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }, [hash, session]);

  if (!session) {
    return (
      <>
        <Header />
        <SignIn
          onSignedIn={(signedIn) => {
            saveSession(signedIn);
            setSession(signedIn);
            location.hash = '#/keys';
          }}
        />
      </>
    );
  }
  const leave = () => {
    signOut();
    setSession(undefined);
  };
  const navigate = (target: string) => {
    location.hash = target;
  };
  const keyMatch = /^#\/keys\/([0-9A-Z]{26})$/.exec(hash);
  const webhookMatch = /^#\/webhooks\/([0-9A-Z]{26})$/.exec(hash);
  const identityMatch = /^#\/identities\/([0-9A-Z]{26})$/.exec(hash);
  return (
    <>
      <Header session={session} onSignOut={leave} />
      {keyMatch ? (
        <KeyPage api={api} session={session} keyId={keyMatch[1]} navigate={navigate} onSignOut={leave} />
      ) : identityMatch ? (
        <IdentityPage api={api} identityId={identityMatch[1] as string} navigate={navigate} />
      ) : hash === '#/identities' ? (
        <Identities api={api} session={session} />
      ) : hash === '#/create' ? (
        <CreateKey api={api} session={session} />
      ) : webhookMatch ? (
        <WebhookPage api={api} session={session} endpointId={webhookMatch[1] as string} />
      ) : hash === '#/analytics' ? (
        <TeamAnalytics api={api} session={session} />
      ) : hash === '#/webhooks' ? (
        <Webhooks api={api} session={session} />
      ) : (
        <KeyList api={api} session={session} />
      )}
    </>
  );
}

function Header({ session, onSignOut }: { session?: Session; onSignOut?: () => void }) {
  return (
    <header class="top">
      <a class="brand" href="#/keys">
        API keys
      </a>
      {session ? (
        <>
          <nav aria-label="Sections">
            <a href="#/keys">Keys</a> · <a href="#/identities">Identities</a> · <a href="#/webhooks">Webhooks</a> · <a href="#/analytics">Analytics</a>
          </nav>
          <span class="who">
            team <code>{session.teamId}</code> · {session.environment}
          </span>
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </>
      ) : null}
    </header>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
