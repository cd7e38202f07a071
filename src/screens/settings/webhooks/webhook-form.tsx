// New endpoint: a modal form (address, events, which agent), then the signing secret, shown once with Copy and Done.
// The secret lives only in this modal's state: the list gets the endpoint without it, and closing the modal drops it.
// A refusal keeps the form open with everything typed, the server's words beside the field they name.
import { useId, useState, type FormEvent } from 'react';
import type { AgentSummary, WebhookEndpoint } from '../../../lib/types.ts';
import { createWebhook, EVENTS } from '../../../lib/webhooks-api.ts';
import { FormActions, Modal } from '../../../ui/modal.tsx';
import { inputOf, localErrors, NEW_DRAFT, saveErrors, type Draft, type FieldErrors } from './webhook-draft.ts';
import { SecretOnce } from '../../../ui/secret-once.tsx';

type WebhookFormProps = {
  /** undefined while they load. */
  agents: AgentSummary[] | undefined;
  agentsError?: string;
  onClose: () => void;
  /** The made endpoint, its secret left out. */
  onCreated: (endpoint: WebhookEndpoint) => void;
};

export function WebhookForm({ agents, agentsError, onClose, onCreated }: WebhookFormProps) {
  const id = useId();
  const formId = `${id}-form`;
  const [draft, setDraft] = useState<Draft>(NEW_DRAFT);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);

  const tick = (type: string, on: boolean) =>
    setDraft((d) => ({ ...d, events: on ? [...d.events, type] : d.events.filter((t) => t !== type) }));
  const errorId = (field: keyof Draft) => (errors[field] ? `${id}-${field}-error` : undefined);
  /** A control's state and description: the reason is read out with the field. */
  const a11y = (field: keyof Draft) => ({
    'aria-invalid': errors[field] ? (true as const) : undefined,
    'aria-describedby': [errorId(field), `${id}-${field}-hint`].filter(Boolean).join(' '),
  });
  const errorOf = (field: keyof Draft) =>
    errors[field] && <p id={errorId(field)} className="field-error" role="alert">{errors[field]}</p>;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = inputOf(draft);
    const found = localErrors(input);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const { secret: made, ...endpoint } = await createWebhook(input);
      setSecret(made);
      onCreated(endpoint);
    } catch (err) {
      setErrors(saveErrors(err));
    } finally {
      setBusy(false);
    }
  };

  if (secret !== null) {
    const done = <button type="button" className="button button-primary" onClick={onClose}>Done</button>;
    return (
      <Modal title="Endpoint created" onClose={onClose} size="medium" footer={done}>
        <SecretOnce value={secret} label="Signing secret" noun="secret">
          <p className="muted webhook-secret-hint">
            Your receiver checks each delivery's <code>webhook-signature</code> header with it (Standard Webhooks).
          </p>
        </SecretOnce>
      </Modal>
    );
  }
  return (
    <Modal title="New endpoint" onClose={onClose} size="medium"
      footer={<FormActions formId={formId} onCancel={onClose} busy={busy} label="Create" busyLabel="Creating..." />}>
      <form id={formId} className="webhook-form" onSubmit={submit} noValidate>
        {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
        <div className="field webhook-field">
          <label htmlFor={`${id}-url`}>URL</label>
          <input id={`${id}-url`} type="url" required autoComplete="off" spellCheck={false} placeholder="https://example.com/hooks/agents"
            value={draft.url} onChange={(e) => setDraft((d) => ({ ...d, url: e.target.value }))} {...a11y('url')} />
          {errorOf('url')}
          <p id={`${id}-url-hint`} className="field-hint">Each event is POSTed here as JSON, signed with the endpoint's secret.</p>
        </div>
        {/* aria-invalid does not belong on a group; the error is its description instead. */}
        <fieldset className="webhook-events" aria-describedby={errorId('events')}>
          <legend>Events</legend>
          {EVENTS.map((event) => (
            <div key={event.type} className="webhook-check">
              <input id={`${id}-${event.type}`} type="checkbox" checked={draft.events.includes(event.type)}
                aria-describedby={`${id}-${event.type}-type`} onChange={(e) => tick(event.type, e.target.checked)} />
              <label htmlFor={`${id}-${event.type}`}>{event.label}</label>
              <code id={`${id}-${event.type}-type`} className="webhook-event-type">{event.type}</code>
            </div>
          ))}
          {errorOf('events')}
        </fieldset>
        <div className="field webhook-field">
          <label htmlFor={`${id}-agent`}>Agent</label>
          <select id={`${id}-agent`} value={draft.agent} onChange={(e) => setDraft((d) => ({ ...d, agent: e.target.value }))} {...a11y('agent')}>
            <option value="">All agents</option>
            {agents?.map((agent) => <option key={agent.id} value={String(agent.id)}>{agent.name}</option>)}
          </select>
          {errorOf('agent')}
          {agentsError && <p className="error-text field-hint" role="alert">Error loading agents: {agentsError}</p>}
          {!agents && !agentsError && <p className="field-hint" role="status">Loading agents...</p>}
          <p id={`${id}-agent-hint`} className="field-hint">Send the events of one agent only, or of all your agents.</p>
        </div>
      </form>
    </Modal>
  );
}
