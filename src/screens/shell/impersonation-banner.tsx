// While impersonating, the shell says whom you act as and offers the way back.
import type { Me } from '../../lib/api.ts';
import { stopImpersonating } from '../../lib/impersonation.ts';

export function ImpersonationBanner({ me }: { me: Me }) {
  if (!me.impersonated_by) return null;
  return (
    <div className="impersonation-banner" role="status">
      <span>
        Acting as <strong>{me.email}</strong> (signed in as {me.impersonated_by.email})
      </span>
      <button type="button" className="button button-small" onClick={() => stopImpersonating()}>Stop impersonating</button>
    </div>
  );
}
