// The built-in sign-in provider on the client: the access token lives in memory only and is
// renewed from the httpOnly refresh cookie (POST /api/auth/token) shortly before it expires.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { getMe, type Me } from './api.ts';
import { configureHttp, HttpError, normalizeError } from './http.ts';
import { clearImpersonation } from './impersonation.ts';

export type AuthState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'signed-in'; me: Me };

type AuthApi = AuthState & {
  signIn: (email: string, password: string) => Promise<void>;
  signUp: (email: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Re-reads /users/me (after a profile change). */
  reload: () => Promise<void>;
};

const AuthContext = createContext<AuthApi | null>(null);
const RENEW_BEFORE_MS = 60_000;
/** The server takes sign-in calls only as JSON (no other site can send that without a CORS preflight). */
const JSON_HEADERS = { 'Content-Type': 'application/json' };
/**
 * Whether this browser signed in and has not signed out since: the refresh cookie itself is httpOnly, and asking
 * for a token without one is a 401 that the browser logs as an error on every signed-out visit.
 */
const SESSION_HINT = 'awSignedIn';
const hint = {
  // Without storage (some private modes) every visit asks, as before.
  get(): boolean {
    try {
      return localStorage.getItem(SESSION_HINT) === '1';
    } catch {
      return true;
    }
  },
  set(on: boolean): void {
    try {
      if (on) localStorage.setItem(SESSION_HINT, '1');
      else localStorage.removeItem(SESSION_HINT);
    } catch {
      // no storage: nothing to remember
    }
  },
};

/**
 * Back from a single sign-on (server/sso): the server set the refresh cookie and sent the browser to `/?signed_in=1`.
 * The marker is noted as a session and taken off the address.
 */
function cameBackSignedIn(): boolean {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('signed_in')) return false;
  url.searchParams.delete('signed_in');
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  return true;
}

let token: string | null = null;
let renewing: Promise<string | null> | null = null;

function expiresAt(jwt: string): number {
  try {
    const payload = JSON.parse(atob(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return payload.exp * 1000;
  } catch {
    return 0;
  }
}

/** Asks the server for a fresh access token from the refresh cookie; null when signed out. */
function renewToken(): Promise<string | null> {
  renewing ??= fetch('/api/auth/token', { method: 'POST', credentials: 'same-origin', headers: JSON_HEADERS })
    .then(async (res) => {
      token = res.ok ? ((await res.json()) as { token: string }).token : null;
      if (res.status === 401) hint.set(false);
      return token;
    })
    .catch(() => token)
    .finally(() => (renewing = null));
  return renewing;
}

export async function getToken(options: { refresh?: boolean } = {}): Promise<string | null> {
  if (options.refresh || (token && expiresAt(token) - Date.now() < RENEW_BEFORE_MS)) return renewToken();
  return token;
}

async function credentialCall(path: string, email: string, password: string): Promise<void> {
  const res = await fetch(`/api/auth/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: JSON_HEADERS,
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw normalizeError(new HttpError(res, 'POST', `/api/auth/${path}`, body));
  token = body.token;
  hint.set(true);
}

/** onToken: called once a session's token is at hand at start-up, before the profile is read (to preload). */
export function AuthProvider({ children, onToken }: { children: ReactNode; onToken?: () => void }) {
  const [state, setState] = useState<AuthState>({ status: 'loading' });

  const loadMe = useCallback(async () => {
    try {
      const me = await getMe();
      setState({ status: 'signed-in', me });
    } catch (err) {
      const { status_code } = normalizeError(err);
      // A stale impersonation target must not lock the admin out.
      if (status_code === 404 && clearImpersonation()) return loadMe();
      setState({ status: 'signed-out' });
    }
  }, []);

  useEffect(() => {
    configureHttp({ getToken, onUnauthorized: () => setState({ status: 'signed-out' }) });
    if (cameBackSignedIn()) hint.set(true);
    // Never signed in here (or signed out since): no session to renew, so no request that can only fail.
    if (!hint.get()) return setState({ status: 'signed-out' });
    renewToken().then((t) => {
      if (!t) return setState({ status: 'signed-out' });
      onToken?.();
      return loadMe();
    });
    // onToken matters at start-up only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loadMe]);

  const api = useMemo<AuthApi>(() => ({
    ...state,
    signIn: async (email, password) => {
      await credentialCall('sign-in', email, password);
      await loadMe();
    },
    signUp: async (email, password) => {
      await credentialCall('sign-up', email, password);
      await loadMe();
    },
    signOut: async () => {
      const res = await fetch('/api/auth/sign-out', { method: 'POST', credentials: 'same-origin', headers: JSON_HEADERS }).catch(() => null);
      // A session from the identity provider: it ends there too (RP-initiated logout), which brings the browser back.
      const body = res?.status === 200 ? await res.json().catch(() => null) : null;
      token = null;
      hint.set(false);
      clearImpersonation();
      if (typeof body?.end_session_url === 'string') return window.location.assign(body.end_session_url);
      setState({ status: 'signed-out' });
    },
    reload: loadMe,
  }), [state, loadMe]);

  return <AuthContext.Provider value={api}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthApi {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}

/** The signed-in user; only for components rendered inside the signed-in shell. */
export function useMe(): Me {
  const auth = useAuth();
  if (auth.status !== 'signed-in') throw new Error('useMe before sign-in');
  return auth.me;
}
