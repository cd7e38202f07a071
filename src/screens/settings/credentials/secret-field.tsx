// A password or TOTP field. A saved value is never shown (the server does not send it): editing, the field
// starts empty as "Unchanged", and Remove, offered only when one is saved, clears it on save.
import { FormField } from './form-field.tsx';

type SecretFieldProps = {
  label: string;
  /** Lower-case name for the Remove label: 'password', 'TOTP secret'. */
  what: string;
  error?: string;
  /** A value is saved (has_password / has_totp). */
  saved?: boolean;
  editing: boolean;
  value: string;
  onChange: (value: string) => void;
  remove: boolean;
  onRemove: (remove: boolean) => void;
  autoComplete: string;
  /** Shown when no value is saved. */
  placeholder: string;
};

export function SecretField(props: SecretFieldProps) {
  const { label, what, error, saved = false, editing, value, onChange, remove, onRemove, autoComplete, placeholder } = props;
  const removable = editing && saved;
  const extra = removable && (
    <label className="credential-remove">
      <input type="checkbox" checked={remove} onChange={(e) => onRemove(e.target.checked)} />
      <span>Remove the saved {what}</span>
    </label>
  );
  return (
    <FormField label={label} error={error} extra={extra}>
      {(a11y) => (
        <input
          {...a11y}
          type="password"
          autoComplete={autoComplete}
          spellCheck={false}
          placeholder={remove ? 'Removed on save' : saved ? 'Unchanged' : placeholder}
          // Ticking Remove wins over anything typed; the field is off so nobody types into a value about to go.
          disabled={remove}
          value={remove ? '' : value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </FormField>
  );
}
