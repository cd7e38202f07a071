// The user's own password, changed from the profile modal. The current one must come along; once changed, the
// user's other sessions (other browsers, other devices) are signed out, and this one goes on.
import { useState, type FormEvent } from 'react';
import { changePassword } from '../../lib/api.ts';
import { normalizeError } from '../../lib/http.ts';

export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const { sessions_ended } = await changePassword(current, next);
      setCurrent('');
      setNext('');
      setDone(sessions_ended > 0
        ? `Password changed. Your other sessions (${sessions_ended}) were signed out.`
        : 'Password changed.');
    } catch (err) {
      setError(normalizeError(err).detail);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="profile-password" onSubmit={submit} aria-labelledby="profile-password-title">
      <h3 id="profile-password-title">Password</h3>
      <label className="field">
        <span>Current password</span>
        <input type="password" value={current} onChange={(e) => setCurrent(e.target.value)} autoComplete="current-password" required autoFocus />
      </label>
      <label className="field">
        <span>New password</span>
        <input type="password" value={next} onChange={(e) => setNext(e.target.value)} autoComplete="new-password" minLength={8} required />
      </label>
      {error && <p className="form-error" role="alert">{error}</p>}
      {done && <p className="profile-done" role="status">{done}</p>}
      <button type="submit" className="button button-primary" disabled={busy}>{busy ? 'Changing...' : 'Change password'}</button>
    </form>
  );
}
