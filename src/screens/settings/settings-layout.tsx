// The settings area: a sidebar (Billing, spec §2, and Account: the user's password) beside the chosen settings page.
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
        <Link href="/settings/account" className="settings-nav-item" aria-current={path === '/settings/account' ? 'page' : undefined}>
          Account
        </Link>
      </nav>
      <div className="settings-content">{children}</div>
    </div>
  );
}
