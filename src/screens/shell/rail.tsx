// The narrow left rail: main links, admin-only links, theme toggle and the user menu.
import { useState, type ReactElement } from 'react';
import { Link, useLocation } from '../../lib/router.ts';
import { useTheme } from '../../lib/theme.ts';
import { AgentsIcon, AppLogo, DashboardIcon, ImpersonateIcon, MoonIcon, OpsIcon, ReportsIcon, SettingsIcon, SunIcon, TracesIcon } from '../../ui/icons.tsx';
import { ImpersonateModal } from './impersonate-modal.tsx';
import { UserMenu } from './user-menu.tsx';

type RailLinkProps = { href: string; label: string; icon: ReactElement; active: boolean };

function RailLink({ href, label, icon, active }: RailLinkProps) {
  return (
    <Link href={href} className="rail-item" aria-current={active ? 'page' : undefined} title={label}>
      {icon}
      <span className="rail-label">{label}</span>
    </Link>
  );
}

export function Rail({ isAdmin }: { isAdmin: boolean }) {
  const { path } = useLocation();
  const [theme, toggleTheme] = useTheme();
  const [impersonating, setImpersonating] = useState(false);
  const under = (prefix: string) => path === prefix || path.startsWith(prefix + '/');

  return (
    <nav className="rail" aria-label="Main">
      <Link href="/" className="rail-logo" title="Agent Workspace">
        <AppLogo size={32} label="Agent Workspace" />
      </Link>
      <RailLink href="/" label="Your Agents" icon={<AgentsIcon />} active={path === '/' || under('/agent')} />
      <RailLink href="/reports" label="Reports" icon={<ReportsIcon />} active={under('/reports')} />
      <RailLink href="/settings" label="Settings" icon={<SettingsIcon />} active={under('/settings')} />
      {isAdmin && (
        <>
          <hr className="rail-divider" />
          <button type="button" className="rail-item" title="Impersonate User" onClick={() => setImpersonating(true)}>
            <ImpersonateIcon />
            <span className="rail-label">Impersonate User</span>
          </button>
          {/* A thread's page belongs to its agent's (it links there), under the Admin Dashboard; the Ops Dashboard is the list. */}
          <RailLink href="/admin" label="Admin Dashboard" icon={<DashboardIcon />}
            active={path === '/admin' || under('/admin/agents') || path.startsWith('/admin/threads/')} />
          <RailLink href="/admin/threads" label="Ops Dashboard" icon={<OpsIcon />} active={under('/admin/ops') || path === '/admin/threads'} />
          <RailLink href="/llm-traces" label="LLM Traces" icon={<TracesIcon />} active={under('/llm-traces')} />
        </>
      )}
      <div className="rail-spacer" />
      <button
        type="button"
        className="rail-item"
        onClick={toggleTheme}
        title={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
        aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
      >
        {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
        <span className="rail-label">Theme</span>
      </button>
      <UserMenu />
      {impersonating && <ImpersonateModal onClose={() => setImpersonating(false)} />}
    </nav>
  );
}
