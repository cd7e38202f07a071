// An accessible modal: labelled dialog, Escape and backdrop close, focus moved in and restored.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { CloseIcon } from './icons.tsx';

type ModalProps = {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: 'small' | 'medium' | 'large';
};

export function Modal({ title, onClose, children, footer, size = 'small' }: ModalProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = panel.current?.querySelector<HTMLElement>('input, textarea, select, [data-autofocus]');
    (first ?? panel.current)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close.current();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, []);

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={panel} className={`modal modal-${size}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
            <CloseIcon />
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}

type FormActionsProps = {
  /** The form the submit button submits (it sits in the modal's footer, outside the form). */
  formId: string;
  onCancel: () => void;
  busy: boolean;
  disabled?: boolean;
  /** @default 'Save' */
  label?: string;
  /** @default 'Saving...' */
  busyLabel?: string;
};

/** A modal footer's Cancel and submit buttons; the submit button says `busyLabel` while busy. */
export function FormActions({ formId, onCancel, busy, disabled = false, label = 'Save', busyLabel = 'Saving...' }: FormActionsProps) {
  return (
    <>
      <button type="button" className="button" onClick={onCancel}>Cancel</button>
      <button type="submit" form={formId} className="button button-primary" disabled={disabled || busy}>
        {busy ? busyLabel : label}
      </button>
    </>
  );
}
