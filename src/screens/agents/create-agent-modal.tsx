// The admin's Create Agent dialog (spec §2 "Your Agents", §5 "Create Agent"): the name is trimmed,
// and Create stays disabled while it is empty or while the request is in flight.
import { useId, useState, type FormEvent } from 'react';
import { createAgent } from '../../lib/api.ts';
import { detailOr } from '../../lib/http.ts';
import type { Agent } from '../../lib/types.ts';
import { FormActions, Modal } from '../../ui/modal.tsx';

type CreateAgentModalProps = {
  onClose: () => void;
  onCreated: (agent: Agent) => void;
};

export function CreateAgentModal({ onClose, onCreated }: CreateAgentModalProps) {
  const formId = useId();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const trimmed = name.trim();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || busy) return;
    setBusy(true);
    try {
      onCreated(await createAgent(trimmed));
    } catch (error) {
      alert(detailOr(error, 'Failed to create agent'));
      setBusy(false);
    }
  };

  return (
    <Modal
      title="Create Agent"
      onClose={onClose}
      footer={<FormActions formId={formId} onCancel={onClose} busy={busy} disabled={!trimmed} label="Create" busyLabel="Creating..." />}
    >
      <form id={formId} onSubmit={submit}>
        <label className="field">
          <span>Name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. Alice"
            maxLength={100}
            autoComplete="off"
            required
          />
        </label>
      </form>
    </Modal>
  );
}
