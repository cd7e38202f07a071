// Grants: which of the user's agents may use a credential, and whether each use waits for the user's yes
// in the agent's chat. Saving replaces both (PUT), so the dialog sends the whole choice.
import { useId, useState, type FormEvent } from 'react';
import { putGrants } from '../../../lib/credentials-api.ts';
import { detailOr } from '../../../lib/http.ts';
import type { AgentSummary, Credential } from '../../../lib/types.ts';
import { FormActions, Modal } from '../../../ui/modal.tsx';

type GrantsDialogProps = {
  credential: Credential;
  /** undefined while the agents load. */
  agents: AgentSummary[] | undefined;
  agentsError?: string;
  onClose: () => void;
  onSaved: (saved: Credential) => void;
};

export function GrantsDialog({ credential, agents, agentsError, onClose, onSaved }: GrantsDialogProps) {
  const formId = useId();
  const [chosen, setChosen] = useState(() => new Set(credential.grants.agent_ids));
  const [ask, setAsk] = useState(credential.grants.ask_each_time);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // A granted agent missing from the list (not loaded, or no longer listed) stays granted unless unticked.
  const listed = agents ?? [];
  const unlisted = credential.grants.agent_ids.filter((id) => !listed.some((a) => a.id === id));
  const choices = [...listed.map((a) => ({ id: a.id, name: a.name })), ...unlisted.map((id) => ({ id, name: `Agent #${id}` }))];

  const toggle = (id: number, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // In the order shown, so the same choice always sends the same body.
      onSaved(await putGrants(credential.id, choices.map((c) => c.id).filter((id) => chosen.has(id)), ask));
    } catch (err) {
      setError(detailOr(err, 'Failed to save the grants'));
      setBusy(false);
    }
  };

  return (
    <Modal title={`Grants for ${credential.name}`} onClose={onClose} footer={<FormActions formId={formId} onCancel={onClose} busy={busy} />}>
      <form id={formId} className="credential-grants" onSubmit={save}>
        {error && <p className="form-error" role="alert">{error}</p>}
        <fieldset className="credential-grants-agents">
          <legend>Agents that may use it</legend>
          {agentsError && <p className="error-text" role="alert">Error loading agents: {agentsError}</p>}
          {!agents && !agentsError && <p className="muted" role="status">Loading agents...</p>}
          {agents && choices.length === 0 && <p className="muted">No agents yet</p>}
          {choices.map((agent) => (
            <label key={agent.id} className="credential-check">
              <input type="checkbox" checked={chosen.has(agent.id)} onChange={(e) => toggle(agent.id, e.target.checked)} />
              <span>{agent.name}</span>
            </label>
          ))}
        </fieldset>
        <label className="credential-check">
          <input type="checkbox" checked={ask} onChange={(e) => setAsk(e.target.checked)} />
          <span>Ask me before each use</span>
        </label>
        <p className="muted credential-grants-hint">
          The agent's run waits for your answer in its chat. No answer in 10 minutes counts as no.
        </p>
      </form>
    </Modal>
  );
}
