// The only screen a signed-out visitor sees: sign in, or create an account. With single sign-on (OIDC_ISSUER) its
// button comes first, and under SIGNIN=oidc-only it is all there is (`/?break-glass` shows the form for the admin);
// a sign-on that came back without a session says why, in a sentence of sign-in-errors.ts.
import { useEffect, useState, type FormEvent } from 'react';
import { useAuth } from '../../lib/auth.tsx';
import type { ApiError } from '../../lib/http.ts';
import { AppLogo } from '../../ui/icons.tsx';
import { breakGlassAsked, signInErrorMessage, takeSignInError } from './sign-in-errors.ts';

export function SignInScreen() {
  const { signIn, signUp } = useAuth();
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const signingUp = mode === 'sign-up';
  // A first start made admin@localhost with a generated password: say where it is kept (public, no secret in it).
  const [firstStart, setFirstStart] = useState(false);
  // A lost password: a link by mail where the server has a relay, else an admin makes one.
  const [resetByMail, setResetByMail] = useState(false);
  const [forgot, setForgot] = useState(false);
  const [resetSaid, setResetSaid] = useState<string | null>(null);
  // Single sign-on: the button's text (null: none) and whether passwords sign in here at all; known once asked.
  const [sso, setSso] = useState<{ name: string | null; passwords: boolean } | null>(null);
  const [ssoError] = useState(() => {
    const code = takeSignInError();
    return code === null ? null : signInErrorMessage(code);
  });
  const [breakGlass] = useState(breakGlassAsked);
  useEffect(() => {
    fetch('/api/auth/first-start').then((res) => (res.ok ? res.json() : null))
      .then((body) => {
        setFirstStart(!!body?.admin_password_file);
        setResetByMail(!!body?.password_reset_by_mail);
        setSso({ name: typeof body?.sso_name === 'string' ? body.sso_name : null, passwords: body?.password_sign_in !== false });
      }, () => setSso({ name: null, passwords: true }));
  }, []);
  const passwords = !sso || sso.passwords || breakGlass;

  async function askForLink() {
    const res = await fetch('/api/auth/password-reset-request', {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: email.trim() }),
    }).catch(() => null);
    const body = await res?.json().catch(() => null);
    const detail = body?.detail;
    setResetSaid(typeof detail === 'string' ? detail : Array.isArray(detail) ? detail[0]?.msg : 'Failed to ask for a link');
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await (signingUp ? signUp : signIn)(email.trim(), password);
    } catch (err) {
      setError((err as ApiError).detail ?? 'An error occurred');
      setBusy(false);
    }
  }

  const ssoBlock = !signingUp && (sso?.name || ssoError) ? (
    <div className="sign-in-sso">
      {ssoError && <p className="form-error" role="alert">{ssoError}</p>}
      {/* A top-level navigation: the server sends the browser on to the provider, which sends it back. */}
      {sso?.name && <a className="button button-primary button-block sign-in-sso-button" href="/api/auth/oidc/start">{sso.name}</a>}
      {sso?.name && passwords && <p className="sign-in-or" aria-hidden="true"><span>or</span></p>}
    </div>
  ) : null;

  if (!passwords) {
    return (
      <main className="sign-in">
        <div className="sign-in-card" role="group" aria-labelledby="sign-in-title">
          <AppLogo size={48} />
          <h1 id="sign-in-title">Sign in to Agent Workspace</h1>
          {ssoBlock}
        </div>
      </main>
    );
  }

  return (
    <main className="sign-in">
      <form className="sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <AppLogo size={48} />
        <h1 id="sign-in-title">{signingUp ? 'Create your account' : 'Sign in to Agent Workspace'}</h1>
        {ssoBlock}
        <label className="field">
          <span>E-mail</span>
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" required autoFocus />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete={signingUp ? 'new-password' : 'current-password'}
            minLength={signingUp ? 8 : undefined}
            required
          />
        </label>
        {error && <p className="form-error" role="alert">{error}</p>}
        <button type="submit" className={`button ${sso?.name ? '' : 'button-primary '}button-block`} disabled={busy}>
          {busy ? (signingUp ? 'Creating account...' : 'Signing in...') : signingUp ? 'Sign up' : 'Sign in'}
        </button>
        {firstStart && !signingUp && (
          <p className="sign-in-first-start muted">
            First start? Sign in as admin@localhost with the password in admin-password.txt in the server's data
            directory (DATA_DIR); the server's log has it too.
          </p>
        )}
        {!signingUp && !forgot && (
          <button type="button" className="link-button sign-in-forgot" onClick={() => setForgot(true)}>Forgot your password?</button>
        )}
        {!signingUp && forgot && (
          <div className="sign-in-forgot-panel" role="status">
            {resetByMail ? (
              <>
                <p>Enter your e-mail above: a link to choose a new password goes to it.</p>
                <button type="button" className="button button-small" disabled={!email.trim()} onClick={() => void askForLink()}>Send me a link</button>
                {resetSaid && <p>{resetSaid}</p>}
              </>
            ) : (
              <p>Ask an administrator of this workspace for a link to choose a new password.</p>
            )}
          </div>
        )}
        {sso?.passwords !== false && <p className="sign-in-switch">
          {signingUp ? 'Already have an account?' : 'New here?'}{' '}
          <button type="button" className="link-button" onClick={() => { setMode(signingUp ? 'sign-in' : 'sign-up'); setError(null); }}>
            {signingUp ? 'Sign in' : 'Create an account'}
          </button>
        </p>}
      </form>
    </main>
  );
}
