// Credentials settings (/settings/credentials): the user's vault. Agents type these into sign-in forms
// without seeing them; the server never sends a saved password or TOTP secret back, so the list shows
// only that one is saved. New/Edit, Grants and Fill history open in modals; Delete asks first.
import { useCallback, useState } from 'react';
import { AGENTS_PATH } from '../../../lib/api.ts';
import { CREDENTIALS_PATH, deleteCredential } from '../../../lib/credentials-api.ts';
import { detailOr } from '../../../lib/http.ts';
import { useTitle } from '../../../lib/title.tsx';
import type { AgentSummary, Credential } from '../../../lib/types.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { SettingsLayout } from '../settings-layout.tsx';
import { CredentialCard } from './credential-card.tsx';
import { CredentialForm } from './credential-form.tsx';
import { FillHistory } from './fill-history.tsx';
import { GrantsDialog } from './grants-dialog.tsx';

type Open = { kind: 'new' } | { kind: 'edit' | 'grants' | 'history'; credential: Credential };

export const deleteQuestion = (name: string) => `Delete the credential "${name}"? Your agents can no longer use it.`;

/** The server's answer replaces the cached copy at once (no refetch of the whole list). */
const withSaved = (list: Credential[] | undefined, saved: Credential) =>
  list?.some((c) => c.id === saved.id) ? list.map((c) => (c.id === saved.id ? saved : c)) : [...(list ?? []), saved];

export default function CredentialsScreen() {
  useTitle('Settings');
  const list = useResource<Credential[]>(CREDENTIALS_PATH);
  const agents = useResource<AgentSummary[]>(AGENTS_PATH);
  const [open, setOpen] = useState<Open | null>(null);
  const [deletingId, setDeletingId] = useState<number | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const agentName = useCallback(
    (id: number) => agents.data?.find((a) => a.id === id)?.name ?? `Agent #${id}`,
    [agents.data],
  );
  const close = () => setOpen(null);
  const saved = (credential: Credential) => {
    setOpen(null);
    void list.mutate((current) => withSaved(current, credential));
  };

  const remove = async (credential: Credential) => {
    if (!window.confirm(deleteQuestion(credential.name))) return;
    setDeletingId(credential.id);
    setActionError(null);
    try {
      await deleteCredential(credential.id);
      void list.mutate((current) => (current ?? []).filter((c) => c.id !== credential.id));
    } catch (err) {
      setActionError(detailOr(err, 'Failed to delete the credential'));
    } finally {
      setDeletingId(null);
    }
  };

  const credentials = list.data;
  return (
    <SettingsLayout>
      <div className="credentials">
        <div className="credentials-header">
          <div>
            <h2 className="credentials-heading">Credentials</h2>
            <p className="muted credentials-intro">Your agents type these into sign-in forms for you and never see them.</p>
          </div>
          <button type="button" className="button button-primary" onClick={() => setOpen({ kind: 'new' })}>New credential</button>
        </div>
        {actionError && <p className="form-error" role="alert">{actionError}</p>}
        {list.error && <p className="error-text" role="alert">Error loading credentials: {list.error.detail}</p>}
        {!credentials && !list.error && <p className="muted" role="status">Loading credentials...</p>}
        {credentials && credentials.length === 0 && <p className="muted">No credentials yet</p>}
        {credentials && credentials.length > 0 && (
          <ul className="credential-list" aria-label="Credentials">
            {credentials.map((credential) => (
              <CredentialCard
                key={credential.id}
                credential={credential}
                agentName={agentName}
                onEdit={() => setOpen({ kind: 'edit', credential })}
                onGrants={() => setOpen({ kind: 'grants', credential })}
                onHistory={() => setOpen({ kind: 'history', credential })}
                onDelete={() => void remove(credential)}
                deleting={deletingId === credential.id}
              />
            ))}
          </ul>
        )}
        {open?.kind === 'new' && <CredentialForm onClose={close} onSaved={saved} />}
        {open?.kind === 'edit' && <CredentialForm credential={open.credential} onClose={close} onSaved={saved} />}
        {open?.kind === 'grants' && (
          <GrantsDialog credential={open.credential} agents={agents.data} agentsError={agents.error?.detail} onClose={close} onSaved={saved} />
        )}
        {open?.kind === 'history' && <FillHistory credential={open.credential} agentName={agentName} onClose={close} />}
      </div>
    </SettingsLayout>
  );
}
