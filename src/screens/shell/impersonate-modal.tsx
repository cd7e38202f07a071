// Admin picks a user to act as: search debounced 300 ms, choosing stores the id and reloads. Beside each user, a
// one-time link to choose a new password, for a user who lost theirs (the admin passes it on).
import { useEffect, useState } from 'react';
import { useMe } from '../../lib/auth.tsx';
import { makePasswordResetLink, searchUsers, type UserSummary } from '../../lib/api.ts';
import { normalizeError } from '../../lib/http.ts';
import { startImpersonating } from '../../lib/impersonation.ts';
import { useDebouncedValue } from '../../lib/use-debounced-value.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Modal } from '../../ui/modal.tsx';
import { Spinner } from '../../ui/spinner.tsx';

export const SEARCH_DEBOUNCE_MS = 300;

export function ImpersonateModal({ onClose }: { onClose: () => void }) {
  const me = useMe();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const key = `/users/?search=${encodeURIComponent(debounced)}`;
  const { data, error, isLoading } = useResource<UserSummary[]>(key, { fetcher: () => searchUsers(debounced) });
  const [link, setLink] = useState<{ email: string; url?: string; error?: string } | null>(null);
  const makeLink = async (u: UserSummary) => {
    try {
      const { path } = await makePasswordResetLink(u.id);
      setLink({ email: u.email, url: `${window.location.origin}${path}` });
    } catch (err) {
      setLink({ email: u.email, error: normalizeError(err).detail });
    }
  };
  // User list errors are logged only (spec §8); the list simply stays empty.
  useEffect(() => {
    if (error) console.error('user search failed:', error.detail);
  }, [error]);

  return (
    <Modal title="Impersonate User" onClose={onClose}>
      <label className="field">
        <span>Search users</span>
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Email or name" autoComplete="off" />
      </label>
      {isLoading && <Spinner label="Searching users" />}
      <ul className="user-list" aria-label="Users">
        {data?.filter((u) => u.id !== me.id).map((u) => (
          <li key={u.id}>
            <button type="button" className="user-list-item" onClick={() => startImpersonating(u.id)}>
              <span className="avatar avatar-small" aria-hidden="true">{(u.email[0] ?? '?').toUpperCase()}</span>
              <span className="user-list-email">{u.email}</span>
              {u.sign_in && <span className="user-list-sign-in muted">{signInLabel(u.sign_in)}</span>}
              {u.role === 'admin' && <span className="badge">admin</span>}
            </button>
            <button type="button" className="button button-small" onClick={() => void makeLink(u)} aria-label={`Password reset link for ${u.email}`}>
              Reset link
            </button>
          </li>
        ))}
        {data && data.every((u) => u.id === me.id) && <li className="muted">No users found</li>}
      </ul>
      {link && (
        <div className="reset-link" role="status">
          {link.url ? (
            <>
              <p>A link for {link.email} to choose a new password, good for one use within an hour:</p>
              <input readOnly value={link.url} aria-label="Password reset link" onFocus={(e) => e.currentTarget.select()} />
            </>
          ) : (
            <p className="form-error">{link.error}</p>
          )}
        </div>
      )}
    </Modal>
  );
}

/** How an account signs in, for the admin's list (issue 49). */
function signInLabel(ways: ('password' | 'sso')[]): string {
  if (!ways.length) return 'no sign-in';
  return ways.map((w) => (w === 'sso' ? 'single sign-on' : 'password')).join(' + ');
}
