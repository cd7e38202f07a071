// New token: a modal form, then the token itself, shown once with Copy and "Done". The secret lives only in this
// modal's state: the list gets the token without it, and closing the modal (Done, Escape, Close) drops it.
import { useId, useState, type FormEvent } from 'react';
import { createToken } from '../../../lib/tokens-api.ts';
import type { ApiToken, ApiTokenScope } from '../../../lib/types.ts';
import { FormActions, Modal } from '../../../ui/modal.tsx';
import { FormField } from '../credentials/form-field.tsx';
import { EXPIRY_CHOICES, inputOf, localErrors, NEW_DRAFT, saveErrors, scopeChoices, type Draft, type FieldErrors } from './token-draft.ts';
import { SecretOnce } from '../../../ui/secret-once.tsx';

type TokenFormProps = {
  /** The signed-in user may make admin tokens. */
  canAdmin: boolean;
  onClose: () => void;
  /** The made token, its secret left out. */
  onCreated: (token: ApiToken) => void;
};

export function TokenForm({ canAdmin, onClose, onCreated }: TokenFormProps) {
  const formId = useId();
  const [draft, setDraft] = useState<Draft>(NEW_DRAFT);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = inputOf(draft);
    const found = localErrors(input);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const { token, ...made } = await createToken(input);
      setSecret(token);
      onCreated(made);
    } catch (err) {
      setErrors(saveErrors(err));
    } finally {
      setBusy(false);
    }
  };

  if (secret !== null) {
    const done = <button type="button" className="button button-primary" onClick={onClose}>Done</button>;
    return (
      <Modal title="Token created" onClose={onClose} size="medium" footer={done}>
        <SecretOnce value={secret} label="Your new token" noun="token" />
      </Modal>
    );
  }
  return (
    <Modal title="New token" onClose={onClose} size="medium"
      footer={<FormActions formId={formId} onCancel={onClose} busy={busy} label="Create" busyLabel="Creating..." />}>
      <form id={formId} className="token-form" onSubmit={submit} noValidate>
        {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
        <FormField label="Name" error={errors.name} hint="What uses it, e.g. “Nightly export”.">
          {(a11y) => (
            <input {...a11y} type="text" required maxLength={100} autoComplete="off" value={draft.name} onChange={(e) => set('name')(e.target.value)} />
          )}
        </FormField>
        <FormField label="Scope" error={errors.scope}>
          {(a11y) => (
            <select {...a11y} value={draft.scope} onChange={(e) => set('scope')(e.target.value as ApiTokenScope)}>
              {scopeChoices(canAdmin).map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
            </select>
          )}
        </FormField>
        <FormField label="Expires" error={errors.expires}>
          {(a11y) => (
            <select {...a11y} value={draft.expires} onChange={(e) => set('expires')(e.target.value)}>
              {EXPIRY_CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
            </select>
          )}
        </FormField>
      </form>
    </Modal>
  );
}
