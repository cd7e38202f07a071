// "Share": a read-only link to this replay that expires (1 hour to 30 days, 7 days unless chosen), shown once
// with a Copy button (the server keeps only the token's hash), and the run's live links, each revocable.
import { useId, useState, type FormEvent } from 'react';
import { detailOr } from '../../lib/http.ts';
import { createShare, listShares, revokeShare, sharesPath, type CreatedShare, type ReplayShare } from '../../lib/replay-api.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Modal } from '../../ui/modal.tsx';
import { formatDateTime } from '../../ui/trace-format.ts';

export const EXPIRIES = [
  { label: '1 hour', seconds: 3_600 },
  { label: '1 day', seconds: 86_400 },
  { label: '7 days', seconds: 604_800 },
  { label: '30 days', seconds: 2_592_000 },
] as const;
export const DEFAULT_EXPIRY = 604_800;

type ShareDialogProps = { runId: number; onClose: () => void };

export function ShareDialog({ runId, onClose }: ShareDialogProps) {
  const [expiry, setExpiry] = useState<number>(DEFAULT_EXPIRY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedShare | null>(null);
  const shares = useResource<ReplayShare[]>(sharesPath(runId), { fetcher: () => listShares(runId), revalidateOnFocus: false });
  const formId = useId();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setCreated(await createShare(runId, expiry));
      void shares.mutate();
    } catch (err) {
      setError(detailOr(err, 'Failed to create the link'));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (id: number) => {
    setError(null);
    try {
      await revokeShare(id);
      if (created?.id === id) setCreated(null);
    } catch (err) {
      setError(detailOr(err, 'Failed to revoke the link'));
    }
    void shares.mutate();
  };

  return (
    <Modal
      title="Share replay"
      onClose={onClose}
      size="medium"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>Close</button>
          <button type="submit" form={formId} className="button button-primary" disabled={busy}>
            {busy ? 'Creating...' : 'Create link'}
          </button>
        </>
      }
    >
      <form id={formId} className="share-form" onSubmit={create}>
        <p className="muted">Anyone with the link can watch this replay without signing in, until it expires or you revoke it.</p>
        <fieldset className="share-expiry">
          <legend>Expires after</legend>
          {EXPIRIES.map((choice) => (
            <label key={choice.seconds} className="share-expiry-choice">
              <input
                type="radio"
                name="expiry"
                value={choice.seconds}
                checked={expiry === choice.seconds}
                onChange={() => setExpiry(choice.seconds)}
              />
              {choice.label}
            </label>
          ))}
        </fieldset>
      </form>
      {error && <p className="form-error" role="alert">{error}</p>}
      {created && <CreatedLink share={created} />}
      <LiveShares shares={shares.data} failed={!!shares.error} onRevoke={revoke} />
    </Modal>
  );
}

function CreatedLink({ share }: { share: CreatedShare }) {
  const url = new URL(share.url, window.location.origin).href;
  const [copied, setCopied] = useState<boolean | null>(null);
  const inputId = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      // No clipboard permission (an insecure origin, an old browser): the link stays selected to copy by hand.
      (document.getElementById(inputId) as HTMLInputElement | null)?.select();
      setCopied(false);
    }
  };
  return (
    <div className="share-created">
      <label className="share-url-label" htmlFor={inputId}>Link, expires {formatDateTime(share.expires_at)}</label>
      <div className="share-url">
        <input id={inputId} type="text" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button" onClick={() => void copy()}>Copy</button>
      </div>
      <p className="share-copied muted" role="status">
        {copied === true ? 'Copied.' : copied === false ? 'Copy it with Ctrl+C (the link is selected).' : ''}
      </p>
    </div>
  );
}

function LiveShares({ shares, failed, onRevoke }: { shares?: ReplayShare[]; failed: boolean; onRevoke: (id: number) => void }) {
  return (
    <section className="share-list" aria-label="Live links">
      <h3>Live links</h3>
      {failed && <p className="form-error">Failed to load the links</p>}
      {!failed && !shares && <p className="muted">Loading…</p>}
      {shares?.length === 0 && <p className="muted">No live links.</p>}
      {shares && shares.length > 0 && (
        <ul>
          {shares.map((share) => (
            <li key={share.id}>
              <span>
                Created {formatDateTime(share.created_at)}
                {typeof share.created_by === 'string' && share.created_by ? ` by ${share.created_by}` : ''}
                {' · '}expires {formatDateTime(share.expires_at)}
              </span>
              <button type="button" className="button button-small" onClick={() => onRevoke(share.id)}
                aria-label={`Revoke the link created ${formatDateTime(share.created_at)}`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
