// The settings area: a sidebar (only Billing, spec §2) beside the chosen settings page.
import type { ReactNode } from 'react';
import { Link, useLocation } from '../../lib/router.ts';

export function SettingsLayout({ children }: { children: ReactNode }) {
  const { path } = useLocation();
  return (
    <div className="settings">
      <nav className="settings-nav" aria-label="Settings">
        <Link href="/settings/billing" className="settings-nav-item" aria-current={path === '/settings/billing' ? 'page' : undefined}>
          Billing
        </Link>
      </nav>
      <div className="settings-content">{children}</div>
    </div>
  );
}
