/**
 * The signed-in manager key: held in this tab's sessionStorage (never a
 * cookie, never localStorage), so it survives a reload of the tab and dies
 * with it; `signOut` removes it.
 */
import { createApiClient, type ApiClient } from '../../client';

const STORAGE_NAME = 'apikeys.console.session';

export interface Session {
  /** The manager key's value. */
  readonly key: string;
  readonly keyId: string;
  readonly teamId: string;
  readonly environment: 'test' | 'live';
}

export function savedSession(): Session | undefined {
  try {
    const saved = sessionStorage.getItem(STORAGE_NAME);
    return saved ? (JSON.parse(saved) as Session) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_NAME, JSON.stringify(session));
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_NAME);
}

/** The API on this page's own origin (`npm start`, or CloudFront in front of API Gateway). */
export function apiFor(key: () => string | undefined): ApiClient {
  return createApiClient({ baseUrl: '', key });
}
