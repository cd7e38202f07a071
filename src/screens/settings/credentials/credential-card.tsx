// One credential in the list: what the server tells about it (never a value: a saved password is dots),
// who may use it, when its values last changed, and its actions.
import type { Credential } from '../../../lib/types.ts';
import { formatDateTime } from '../../../ui/trace-format.ts';
import { relativeTime } from '../../admin/relative-time.ts';

export const PASSWORD_DOTS = '••••••••';

type CredentialCardProps = {
  credential: Credential;
  agentName: (id: number) => string;
  onEdit: () => void;
  onGrants: () => void;
  onHistory: () => void;
  onDelete: () => void;
  deleting: boolean;
};

export function CredentialCard({ credential: c, agentName, onEdit, onGrants, onHistory, onDelete, deleting }: CredentialCardProps) {
  const changed = relativeTime(c.values_changed_at);
  const agents = c.grants.agent_ids.map(agentName);
  return (
    <li className="credential-card">
      <div className="credential-card-header">
        <h3 className="credential-name">{c.name}</h3>
        {c.has_totp && <span className="badge">TOTP</span>}
        {c.grants.ask_each_time && <span className="badge credential-ask">Ask before each use</span>}
      </div>
      <dl className="credential-facts">
        <dt>Username</dt>
        <dd>{c.username || <span className="muted">None</span>}</dd>
        <dt>Password</dt>
        <dd>
          {c.has_password ? (
            <>
              <span className="credential-dots" aria-hidden="true">{PASSWORD_DOTS}</span>
              <span className="visually-hidden">Saved</span>
            </>
          ) : <span className="muted">No password</span>}
        </dd>
        <dt>Targets</dt>
        <dd>
          {c.targets.length === 0 ? <span className="muted">None</span> : (
            <ul className="credential-target-list">
              {c.targets.map((target) => <li key={target} className="credential-target">{target}</li>)}
            </ul>
          )}
        </dd>
        <dt>Agents</dt>
        <dd>{agents.length > 0 ? agents.join(', ') : <span className="muted">None yet</span>}</dd>
        {c.notes && (
          <>
            <dt>Notes</dt>
            <dd className="credential-notes">{c.notes}</dd>
          </>
        )}
      </dl>
      <div className="credential-card-footer">
        <time className="muted credential-changed" dateTime={c.values_changed_at} title={formatDateTime(c.values_changed_at)}>
          Changed {changed === 'now' ? 'just now' : changed}
        </time>
        <div className="credential-actions">
          <button type="button" className="button button-small" aria-label={`Edit ${c.name}`} onClick={onEdit}>Edit</button>
          <button type="button" className="button button-small" aria-label={`Grants of ${c.name}`} onClick={onGrants}>Grants</button>
          <button type="button" className="button button-small" aria-label={`Fill history of ${c.name}`} onClick={onHistory}>Fill history</button>
          <button type="button" className="button button-small credential-delete" aria-label={`Delete ${c.name}`} onClick={onDelete}
            disabled={deleting}>
            {deleting ? 'Deleting...' : 'Delete'}
          </button>
        </div>
      </div>
    </li>
  );
}
