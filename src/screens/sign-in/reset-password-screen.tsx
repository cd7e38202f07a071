// /reset-password#<token>: a one-time link an admin made (Impersonate User → Reset link) for a user to choose a new
// password. The token is in the fragment (sent to no server with the page, nor in a Referer); the link is spent
// when used, every session of the user ends, and they sign in with the new password.
import { useState, type FormEvent } from 'react';
import { navigate } from '../../lib/router.ts';
import { AppLogo } from '../../ui/icons.tsx';

export function ResetPasswordScreen() {
  const token = window.location.hash.slice(1);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const res = await fetch('/api/auth/password-reset', {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, new_password: password }),
    }).catch(() => null);
    setBusy(false);
    if (res?.ok) return setDone(true);
    const body = await res?.json().catch(() => null);
    const detail = body?.detail;
    setError(typeof detail === 'string' ? detail : Array.isArray(detail) ? detail.map((d: { msg: string }) => d.msg).join('; ') : 'Failed to set the password');
  }

  return (
    <main className="sign-in">
      <form className="sign-in-card" onSubmit={submit} aria-labelledby="reset-title">
        <AppLogo size={48} />
        <h1 id="reset-title">Choose a new password</h1>
        {done ? (
          <>
            <p role="status">Your new password is set. Sign in with it; any other sessions of yours were signed out.</p>
            <button type="button" className="button button-primary button-block" onClick={() => navigate('/', { replace: true })}>Sign in</button>
          </>
        ) : (
          <>
            <label className="field">
              <span>New password</span>
              <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password"
                minLength={8} required autoFocus />
            </label>
            {!token && <p className="form-error" role="alert">This link is incomplete. Ask for a new one.</p>}
            {error && <p className="form-error" role="alert">{error}</p>}
            <button type="submit" className="button button-primary button-block" disabled={busy || !token}>
              {busy ? 'Saving...' : 'Set password'}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
