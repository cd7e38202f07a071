// One communication message on the Admin thread page (spec §3, §4 "Outbound message"): inbound mail or
// the agent's outbound message with its state. While it requires approval the admin can edit its
// text, queue it for sending, or delete it; each failure shows the spec's text (§8) in the item.
import { useState } from 'react';
import {
  deleteCommMessage, queueCommMessage, updateCommMessageText, type CommMessage, type IdnView, type OutboundState,
} from '../../lib/admin-api.ts';
import { normalizeError } from '../../lib/http.ts';
import { formatDateTime } from '../../ui/trace-format.ts';
import { FileIcon } from '../../ui/icons.tsx';

const HELD = {
  unverified: 'Held: it runs only when the owner runs the thread.',
  rate: 'Held: the agent\'s hourly mail runs were used up; it runs when the owner runs the thread.',
} as const;

export const STATE_LABELS: Record<OutboundState, string> = {
  requires_approval: 'Requires approval',
  queued: 'Queued',
  success: 'Success',
  dead: 'Dead',
};

const FAILURES = { save: 'Failed to save message', queue: 'Failed to queue message', delete: 'Failed to delete message' } as const;
type Action = keyof typeof FAILURES;

type Props = {
  message: CommMessage;
  /** After a change on the server: the page reloads the list and the thread. */
  onChanged: () => void | Promise<void>;
};

/** An IDN address: the form a person reads beside the ASCII one that is sent, and mixed scripts in red. */
function IdnWarning({ who, address, idn }: { who: string; address: string; idn: IdnView }) {
  return (
    <div className="comm-idn" role="note" aria-label={`International ${who} address`}>
      <p>
        <span aria-hidden="true">⚠ </span>
        The {who}'s domain is international: <code>{address}</code> is written{' '}
        <code className="comm-idn-unicode">{idn.unicode}</code>. Check it is the one you mean.
      </p>
      {idn.mixed_scripts && (
        <p className="comm-idn-mixed">
          Its name mixes {idn.mixed_scripts.join(' and ')} letters: it can look like another address.
        </p>
      )}
    </div>
  );
}

export function CommMessageItem({ message, onChanged }: Props) {
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState<Action | null>(null);
  const [failure, setFailure] = useState<{ text: string; detail: string } | null>(null);
  const pending = message.role === 'outbound' && message.outbound_state === 'requires_approval';
  const label = message.role === 'inbound' ? 'Inbound' : 'Outbound';

  const run = async (action: Action, call: () => Promise<unknown>) => {
    setBusy(action);
    setFailure(null);
    try {
      await call();
      if (action === 'save') setDraft(null);
      await onChanged();
    } catch (err) {
      setFailure({ text: FAILURES[action], detail: normalizeError(err).detail });
    } finally {
      setBusy(null);
    }
  };

  const remove = () => {
    if (!window.confirm('Delete this message?')) return;
    void run('delete', () => deleteCommMessage(message.id));
  };

  return (
    <li className="comm-message" data-role={message.role} data-state={message.outbound_state ?? undefined} aria-label={`${label} message ${message.id}`}>
      <div className="comm-message-head">
        <span className="badge comm-role">{label}</span>
        {message.outbound_state && <span className="badge comm-state" data-state={message.outbound_state}>{STATE_LABELS[message.outbound_state]}</span>}
        <span className="comm-addresses">
          {message.from_address || 'unknown sender'} → {message.to_address || 'unknown recipient'}
        </span>
        <time className="comm-time muted" dateTime={message.created_at}>{formatDateTime(message.created_at)}</time>
      </div>
      {message.to_idn && <IdnWarning who="recipient" address={message.to_address} idn={message.to_idn} />}
      {message.from_idn && <IdnWarning who="sender" address={message.from_address} idn={message.from_idn} />}
      {message.role === 'inbound' && typeof message.sender_verified === 'boolean' && (
        <p className={`comm-note comm-sender ${message.sender_verified ? 'muted' : 'comm-unverified'}`}>
          {message.sender_verified ? 'Verified sender' : 'Unverified sender'}{message.sender_auth ? `: ${message.sender_auth}` : ''}
        </p>
      )}
      {message.held_reason && (
        <p className="comm-note comm-held">
          {HELD[message.held_reason]}
        </p>
      )}
      {message.subject && <p className="comm-subject">{message.subject}</p>}

      {draft === null ? (
        <p className="comm-text">{message.text}</p>
      ) : (
        <label className="field comm-edit">
          <span>Message text</span>
          <textarea value={draft} rows={Math.min(16, Math.max(4, draft.split('\n').length + 1))} onChange={(e) => setDraft(e.target.value)} />
        </label>
      )}

      {message.files.length > 0 && (
        <ul className="message-files comm-files" aria-label="Files">
          {message.files.map((name) => (
            <li key={name} className="message-file">
              <FileIcon size={14} />
              <span>{name}</span>
            </li>
          ))}
        </ul>
      )}

      {message.outbound_state === 'success' && message.sent_at && <p className="comm-note muted">Sent {formatDateTime(message.sent_at)}</p>}
      {message.outbound_state === 'queued' && message.last_error && (
        <p className="comm-note muted">Attempt {message.attempts} failed, trying again: {message.last_error}</p>
      )}
      {message.outbound_state === 'dead' && (
        <p className="comm-note error-text">Gave up after {message.attempts} attempts{message.last_error ? `: ${message.last_error}` : ''}</p>
      )}

      {failure && (
        <div className="form-error admin-error" role="alert">
          <p>{failure.text}</p>
          {failure.detail && failure.detail !== failure.text && <p className="admin-error-detail">{failure.detail}</p>}
        </div>
      )}

      {pending && (
        <div className="comm-actions">
          {draft === null ? (
            <>
              <button type="button" className="button button-small" disabled={busy !== null} onClick={() => setDraft(message.text)}>Edit</button>
              <button type="button" className="button button-small button-primary" disabled={busy !== null}
                onClick={() => void run('queue', () => queueCommMessage(message.id))}>
                {busy === 'queue' ? 'Queuing...' : 'Queue'}
              </button>
              <button type="button" className="button button-small comm-delete" disabled={busy !== null} onClick={remove}>
                {busy === 'delete' ? 'Deleting...' : 'Delete'}
              </button>
            </>
          ) : (
            <>
              <button type="button" className="button button-small button-primary" disabled={busy !== null || !draft.trim()}
                onClick={() => void run('save', () => updateCommMessageText(message.id, draft))}>
                {busy === 'save' ? 'Saving...' : 'Save'}
              </button>
              <button type="button" className="button button-small" disabled={busy !== null}
                onClick={() => { setDraft(null); setFailure(null); }}>Cancel</button>
            </>
          )}
        </div>
      )}
    </li>
  );
}
