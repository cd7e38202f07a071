// The round avatar with the first letter of the e-mail; it opens the profile modal.
import { useState } from 'react';
import { useAuth, useMe } from '../../lib/auth.tsx';
import { stopImpersonating } from '../../lib/impersonation.ts';
import { Modal } from '../../ui/modal.tsx';
import { PasswordForm } from './password-form.tsx';

export function UserMenu() {
  const me = useMe();
  const [open, setOpen] = useState(false);
  const letter = (me.email.trim()[0] ?? '?').toUpperCase();
  return (
    <>
      <button type="button" className="avatar" onClick={() => setOpen(true)} aria-label={`Profile: ${me.email}`} title={me.email}>
        {letter}
      </button>
      {open && <ProfileModal onClose={() => setOpen(false)} />}
    </>
  );
}

function ProfileModal({ onClose }: { onClose: () => void }) {
  const me = useMe();
  const { signOut } = useAuth();
  const [changingPassword, setChangingPassword] = useState(false);
  return (
    <Modal
      title="Profile"
      onClose={onClose}
      footer={
        <>
          {me.impersonated_by && (
            <button type="button" className="button" onClick={() => stopImpersonating()}>Stop impersonating</button>
          )}
          <button type="button" className="button button-primary" onClick={signOut} data-autofocus>Sign out</button>
        </>
      }
    >
      <dl className="profile">
        <dt>E-mail</dt>
        <dd>{me.email}</dd>
        <dt>Role</dt>
        <dd>{me.role}</dd>
        {me.impersonated_by && (
          <>
            <dt>Signed in as</dt>
            <dd>{me.impersonated_by.email}</dd>
          </>
        )}
      </dl>
      {/* An admin acting as the user may not change the user's password (the server answers 403). */}
      {!me.impersonated_by && (changingPassword
        ? <PasswordForm />
        : <button type="button" className="button profile-password-open" onClick={() => setChangingPassword(true)}>Change password</button>)}
    </Modal>
  );
}
