// Fill history: each time an agent typed (or was stopped from typing) a credential, newest first, with a
// link to the thread it happened in. Read once when opened; the list is an audit, not a live feed.
import { fillsPath } from '../../../lib/credentials-api.ts';
import { Link } from '../../../lib/router.ts';
import type { Credential, CredentialFill } from '../../../lib/types.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { Modal } from '../../../ui/modal.tsx';
import { formatDateTime } from '../../../ui/trace-format.ts';

const FIELD_LABELS: Record<string, string> = { username: 'Username', password: 'Password', totp: 'TOTP code', sign_in: 'Sign-in' };

/** Colours the outcome: typed, held back (refused or denied), or a value that may have gone somewhere else. */
export function outcomeTone(outcome: string): 'ok' | 'held' | 'leak' {
  if (outcome.startsWith('possible leak')) return 'leak';
  return outcome.startsWith('filled') ? 'ok' : 'held';
}

/** The thread's agent screen; ?thread= names the thread (the agent screen does not pick it up yet: it opens on its own choice). */
export const threadHref = (fill: Pick<CredentialFill, 'agent_id' | 'thread_id'>) => `/agent/${fill.agent_id}?thread=${fill.thread_id}`;

type FillHistoryProps = { credential: Credential; agentName: (id: number) => string; onClose: () => void };

export function FillHistory({ credential, agentName, onClose }: FillHistoryProps) {
  const { data, error } = useResource<CredentialFill[]>(fillsPath(credential.id), { revalidateOnFocus: false });
  const close = <button type="button" className="button" onClick={onClose}>Close</button>;
  return (
    <Modal title={`Fill history of ${credential.name}`} onClose={onClose} size="large" footer={close}>
      {error && <p className="error-text" role="alert">Error loading the fill history: {error.detail}</p>}
      {!data && !error && <p className="muted" role="status">Loading fill history...</p>}
      {data && data.length === 0 && <p className="muted">No fills yet</p>}
      {data && data.length > 0 && (
        <div className="table-scroll">
          <table className="data-table credential-fills">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Agent</th>
                <th scope="col">Thread</th>
                <th scope="col">Field</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {data.map((fill, i) => (
                <tr key={`${fill.at}-${i}`}>
                  <td><time dateTime={fill.at}>{formatDateTime(fill.at)}</time></td>
                  <td>{agentName(fill.agent_id)}</td>
                  <td><Link href={threadHref(fill)}>Thread #{fill.thread_id}</Link></td>
                  <td>{FIELD_LABELS[fill.field] ?? fill.field}</td>
                  <td className="credential-target">{fill.target}</td>
                  <td className="credential-outcome" data-tone={outcomeTone(fill.outcome)}>{fill.outcome}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Modal>
  );
}
