// A modal around one form, with Cancel and a Save button that submits it ('Saving...' while busy).
import { useId, type FormEvent, type ReactNode } from 'react';
import { FormActions, Modal } from '../../../ui/modal.tsx';

type FormModalProps = { title: string; busy: boolean; onClose: () => void; onSubmit: (e: FormEvent) => void; className?: string; children: ReactNode };

export function FormModal({ title, busy, onClose, onSubmit, className, children }: FormModalProps) {
  const formId = useId();
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={<FormActions formId={formId} onCancel={onClose} busy={busy} />}
    >
      <form id={formId} className={className} onSubmit={onSubmit}>{children}</form>
    </Modal>
  );
}
