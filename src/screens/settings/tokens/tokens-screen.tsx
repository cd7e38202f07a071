// API tokens settings (/settings/tokens, issue 46): personal tokens to call the API from other software. The list
// names a token by its prefix only; the whole token is shown once, when made (token-form.tsx). Revoke asks first.
// Admins also see every user's tokens (all-tokens.tsx).
import { useState } from 'react';
import { useMe } from '../../../lib/auth.tsx';
import { ADMIN_TOKENS_PATH, TOKENS_PATH } from '../../../lib/tokens-api.ts';
import { useTitle } from '../../../lib/title.tsx';
import type { ApiToken } from '../../../lib/types.ts';
import { useIsAdmin } from '../../../lib/use-is-admin.ts';
import { mutate, useResource } from '../../../lib/use-resource.ts';
import { SettingsLayout } from '../settings-layout.tsx';
import { AllTokens } from './all-tokens.tsx';
import { TokenForm } from './token-form.tsx';
import { TokenTable } from './token-table.tsx';
import { useRevoke } from './use-revoke.ts';

export default function TokensScreen() {
  useTitle('Settings');
  const me = useMe();
  // An admin acting as another user keeps the admin tools (use-is-admin.ts), so sees "All tokens"; an admin
  // token, though, is made for its owner's own role, which the server checks.
  const admin = useIsAdmin();
  const list = useResource<ApiToken[]>(TOKENS_PATH);
  const [creating, setCreating] = useState(false);
  const { revoke, revokingId, error: revokeError } = useRevoke();

  const created = (token: ApiToken) => {
    void list.mutate((current) => [token, ...(current ?? [])]); // newest first, like the server's list
    if (admin) void mutate(ADMIN_TOKENS_PATH);
  };

  return (
    <SettingsLayout>
      <div className="tokens">
        <div className="tokens-header">
          <div>
            <h2 className="tokens-heading">API tokens</h2>
            <p className="muted tokens-intro">
              Call the API from other software with <code>Authorization: Bearer &lt;token&gt;</code>.
            </p>
          </div>
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>New token</button>
        </div>
        {revokeError && <p className="form-error" role="alert">{revokeError}</p>}
        <TokenTable tokens={list.data} error={list.error} label="Your API tokens" loadingText="Loading tokens..."
          onRevoke={(token) => void revoke(token)} revokingId={revokingId} />
        {admin && <AllTokens onRevoke={(token) => void revoke(token)} revokingId={revokingId} />}
        {creating && <TokenForm canAdmin={me.role === 'admin'} onClose={() => setCreating(false)} onCreated={created} />}
      </div>
    </SettingsLayout>
  );
}
