// The Admin and Ops dashboards' way to the audit trail.
import { Link } from '../../lib/router.ts';

export function AuditLink() {
  return (
    <p className="admin-page-bar audit-link">
      <Link href="/admin/audit">Audit trail</Link>
      <span className="muted">Who did what, and when: sign-ins, changes, approvals, impersonation.</span>
    </p>
  );
}
