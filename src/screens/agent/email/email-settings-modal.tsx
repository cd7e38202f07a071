// Email settings (admin more-options menu, spec §2/§5): the agent's address prefix, shown as the full
// address, and the senders it accepts, one pattern per line. Load and save failures use the spec's
// texts; a detail from the server (a taken prefix, a bad pattern) is shown under the save failure.
import { useId, useState, type FormEvent } from 'react';
import { useEditable } from '../../../lib/use-editable.ts';
import { getEmailSettings, putEmailSettings } from '../../../lib/api.ts';
import { HttpError, normalizeError } from '../../../lib/http.ts';
import { FormActions, Modal } from '../../../ui/modal.tsx';
import { fromForm, toForm, type EmailForm } from './email-form.ts';

type EmailSettingsModalProps = { agentId: number; onClose: () => void; onSaved?: () => void };

export function EmailSettingsModal({ agentId, onClose, onSaved }: EmailSettingsModalProps) {
  const formId = useId();
  const hintId = useId();
  const loaded = useEditable(async () => {
    const settings = await getEmailSettings(agentId);
    return { domain: settings.mail_domain, form: toForm(settings) };
  }, agentId);
  const form = loaded.value?.form ?? null;
  const domain = loaded.value?.domain ?? '';
  const setForm = (next: EmailForm) => loaded.setValue((current) => current && { ...current, form: next });
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form || saving) return;
    setSaving(true);
    setSaveError(null);
    try {
      await putEmailSettings(agentId, fromForm(form));
      onSaved?.();
      onClose();
    } catch (error) {
      // The server's words only where they say what to change (409 taken, 422 invalid).
      const told = error instanceof HttpError && (error.status === 409 || error.status === 422);
      setSaveError(told ? normalizeError(error).detail : '');
      setSaving(false);
    }
  };

  const prefix = form?.prefix.trim() ?? '';
  return (
    <Modal
      title="Email settings"
      onClose={onClose}
      size="medium"
      footer={<FormActions formId={formId} onCancel={onClose} busy={saving} disabled={!form} />}
    >
      {loaded.error !== null ? (
        <div className="editor-error" role="alert">
          <p>Failed to load email settings</p>
          <button type="button" className="button" onClick={loaded.retry}>Retry</button>
        </div>
      ) : !form ? (
        <p className="editor-loading" role="status">Loading email settings...</p>
      ) : (
        <form id={formId} className="email-settings" onSubmit={submit}>
          {saveError !== null && (
            <div className="form-error" role="alert">
              <p>Failed to save email settings</p>
              {saveError && <p className="email-settings-detail">{saveError}</p>}
            </div>
          )}
          <p className="email-address" aria-live="polite">
            <span>Address</span>
            {prefix ? <code>{prefix}@{domain}</code> : <em>No address: set a prefix to receive mail.</em>}
          </p>
          <label className="field">
            <span>Email prefix</span>
            <span className="email-prefix-input">
              <input
                value={form.prefix}
                onChange={(e) => setForm({ ...form, prefix: e.target.value })}
                placeholder="e.g. support"
                maxLength={64}
                autoComplete="off"
                spellCheck={false}
              />
              <span className="email-domain">@{domain}</span>
            </span>
          </label>
          <label className="field">
            <span>Accept mail from</span>
            <textarea
              className="email-patterns"
              value={form.patterns}
              onChange={(e) => setForm({ ...form, patterns: e.target.value })}
              placeholder={'boss@example.com\n@partner.org\n*.example.com\nbilling-*@example.com'}
              rows={6}
              spellCheck={false}
              aria-describedby={hintId}
            />
          </label>
          <p id={hintId} className="field-hint">
            One pattern per line: an address, <code>@domain</code>, <code>*.domain</code> for its subdomains, or a prefix
            wildcard such as <code>billing-*@example.com</code>. Mail from anyone else is refused, so with no patterns no mail gets in.
          </p>
        </form>
      )}
    </Modal>
  );
}
