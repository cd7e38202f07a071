// A list of tokens in its states (loading, error, empty) and as a table: never a secret, only the prefix that
// names a token. With `withUser` (the admin's list) each row also says whose token it is.
import type { ApiError } from '../../../lib/http.ts';
import type { ApiToken, UserApiToken } from '../../../lib/types.ts';
import { formatDateTime } from '../../../ui/trace-format.ts';
import { SCOPE_LABELS, tokenStatus } from './token-status.ts';

type TokenTableProps = {
  tokens: (ApiToken | UserApiToken)[] | undefined;
  error: ApiError | undefined;
  /** The table's accessible name, e.g. 'Your API tokens'. */
  label: string;
  loadingText: string;
  withUser?: boolean;
  onRevoke: (token: ApiToken) => void;
  revokingId: number | null;
};

export function TokenTable({ tokens, error, label, loadingText, withUser = false, onRevoke, revokingId }: TokenTableProps) {
  if (error) return <p className="error-text" role="alert">Error loading tokens: {error.detail}</p>;
  if (!tokens) return <p className="muted" role="status">{loadingText}</p>;
  if (tokens.length === 0) return <p className="muted">No API tokens yet</p>;
  const now = Date.now();
  return (
    <div className="table-scroll">
      <table className="data-table token-table" aria-label={label}>
        <thead>
          <tr>
            {withUser && <th scope="col">User</th>}
            <th scope="col">Name</th>
            <th scope="col">Scope</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col"><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => {
            const status = tokenStatus(token, now);
            const owner = 'user_email' in token ? token.user_email : null;
            return (
              <tr key={token.id} className="token-row" data-status={status.toLowerCase()}>
                {withUser && <td className="token-user">{owner}</td>}
                <td className="token-name">{token.name}</td>
                <td>{SCOPE_LABELS[token.scope] ?? token.scope}</td>
                <td><code className="token-prefix">{token.prefix}…</code></td>
                <td><DateCell value={token.created_at} /></td>
                <td><DateCell value={token.expires_at} /></td>
                <td><DateCell value={token.last_used_at} /></td>
                <td><span className="badge token-status" data-status={status.toLowerCase()}>{status}</span></td>
                <td>
                  {status === 'Active' && (
                    <button type="button" className="button button-small token-revoke" disabled={revokingId === token.id}
                      aria-label={owner ? `Revoke ${token.name} of ${owner}` : `Revoke ${token.name}`} onClick={() => onRevoke(token)}>
                      {revokingId === token.id ? 'Revoking...' : 'Revoke'}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A time, or "Never" for a token that never expires or was never used. */
function DateCell({ value }: { value: string | null }) {
  if (!value) return <span className="muted">Never</span>;
  return <time dateTime={value}>{formatDateTime(value)}</time>;
}
