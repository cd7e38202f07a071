// The settings area: a sidebar (Billing, Credentials, API tokens, Webhooks, Notifications) beside the chosen settings page.
import type { ReactNode } from 'react';
import { Link, useLocation } from '../../lib/router.ts';

const PAGES = [
  { href: '/settings/billing', label: 'Billing' },
  { href: '/settings/credentials', label: 'Credentials' },
  { href: '/settings/tokens', label: 'API tokens' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/notifications', label: 'Notifications' },
];

export function SettingsLayout({ children }: { children: ReactNode }) {
  const { path } = useLocation();
  const here = path.replace(/\/+$/, ''); // the routes tolerate a trailing slash, so the mark does too
  return (
    <div className="settings">
      <nav className="settings-nav" aria-label="Settings">
        {PAGES.map((page) => (
          <Link key={page.href} href={page.href} className="settings-nav-item" aria-current={here === page.href ? 'page' : undefined}>
            {page.label}
          </Link>
        ))}
      </nav>
      <div className="settings-content">{children}</div>
    </div>
  );
}
