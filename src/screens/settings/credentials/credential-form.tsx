// New and Edit credential: a modal form. Editing, the password and TOTP fields start empty ("Unchanged"):
// the server never sends them back, so only what is typed (or Remove) is sent, with the other changed keys.
import { useId, useState, type FormEvent } from 'react';
import { createCredential, updateCredential } from '../../../lib/credentials-api.ts';
import type { Credential } from '../../../lib/types.ts';
import { FormActions, Modal } from '../../../ui/modal.tsx';
import { changesOf, draftOf, inputOf, localErrors, saveErrors, type Draft, type FieldErrors } from './credential-draft.ts';
import { FormField } from './form-field.tsx';
import { SecretField } from './secret-field.tsx';

export const TARGET_HINT = 'One per line: an origin pattern like https://*.example.com or http://localhost:8080, '
  + 'or window:<class> or window:<class>:<title with *> for an app outside the browser.';

type CredentialFormProps = { credential?: Credential; onClose: () => void; onSaved: (saved: Credential) => void };

export function CredentialForm({ credential, onClose, onSaved }: CredentialFormProps) {
  const formId = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(credential));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = inputOf(draft);
    const changes = credential ? changesOf(draft, credential) : input;
    const found = localErrors(changes);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    if (credential && Object.keys(changes).length === 0) return onClose(); // nothing to send
    setBusy(true);
    try {
      const saved = credential ? await updateCredential(credential.id, changes) : await createCredential(input);
      onSaved(saved);
    } catch (err) {
      setErrors(saveErrors(err, changes.targets));
      setBusy(false);
    }
  };

  const editing = credential !== undefined;
  return (
    <Modal
      title={editing ? `Edit ${credential.name}` : 'New credential'}
      onClose={onClose}
      size="medium"
      footer={
        <FormActions formId={formId} onCancel={onClose} busy={busy} label={editing ? 'Save' : 'Create'} busyLabel={editing ? 'Saving...' : 'Creating...'} />
      }
    >
      <form id={formId} className="credential-form" onSubmit={submit} noValidate>
        {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
        <FormField label="Name" error={errors.name}>
          {(a11y) => (
            <input {...a11y} type="text" required maxLength={100} autoComplete="off" value={draft.name} onChange={(e) => set('name')(e.target.value)} />
          )}
        </FormField>
        <FormField label="Username" error={errors.username}>
          {(a11y) => (
            <input {...a11y} type="text" autoComplete="off" spellCheck={false} value={draft.username}
              onChange={(e) => set('username')(e.target.value)} />
          )}
        </FormField>
        <SecretField
          label="Password" what="password" error={errors.password} saved={credential?.has_password} editing={editing}
          value={draft.password} onChange={set('password')} remove={draft.removePassword} onRemove={set('removePassword')}
          autoComplete="new-password" placeholder={editing ? 'None saved' : ''}
        />
        <SecretField
          label="TOTP secret" what="TOTP secret" error={errors.totp} saved={credential?.has_totp} editing={editing}
          value={draft.totp} onChange={set('totp')} remove={draft.removeTotp} onRemove={set('removeTotp')}
          autoComplete="off" placeholder="otpauth://… or base32 key"
        />
        <FormField label="Targets" error={errors.targets} hint={TARGET_HINT}>
          {(a11y) => (
            <textarea {...a11y} rows={3} spellCheck={false} className="credential-targets" value={draft.targets}
              onChange={(e) => set('targets')(e.target.value)} />
          )}
        </FormField>
        <FormField label="Notes" error={errors.notes}>
          {(a11y) => <textarea {...a11y} rows={2} value={draft.notes} onChange={(e) => set('notes')(e.target.value)} />}
        </FormField>
      </form>
    </Modal>
  );
}
