// One labelled form control with its hint and its error: the control gets the ids that tie them to it
// (aria-describedby, aria-invalid), so a screen reader reads the reason with the field it belongs to.
import { useId, type ReactNode } from 'react';

export type ControlProps = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string };

type FormFieldProps = {
  label: string;
  error?: string;
  hint?: ReactNode;
  /** Below the control (e.g. a Remove checkbox). */
  extra?: ReactNode;
  children: (control: ControlProps) => ReactNode;
};

export function FormField({ label, error, hint, extra, children }: FormFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : '';
  const errorId = error ? `${id}-error` : '';
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field credential-field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error && <p id={errorId} className="field-error">{error}</p>}
      {hint && <p id={hintId} className="field-hint">{hint}</p>}
      {extra}
    </div>
  );
}
