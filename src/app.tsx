// The app: sign-in gate, the shared layout, and the route table mapped to screens.
import { Suspense, useEffect, type ReactNode } from 'react';
import { AGENTS_PATH } from './lib/api.ts';
import { AuthProvider, useAuth } from './lib/auth.tsx';
import { navigate, useLocation } from './lib/router.ts';
import { lazyScreen, type Preloadable } from './lib/lazy-screen.ts';
import { resolveRoute, type RouteMatch } from './lib/routes.ts';
import { TitleProvider, useTitleValue } from './lib/title.tsx';
import { useIsAdmin } from './lib/use-is-admin.ts';
import { preload } from './lib/use-resource.ts';
import { Forbidden, NotFound } from './screens/error-pages/error-pages.tsx';
import { ImpersonationBanner } from './screens/shell/impersonation-banner.tsx';
import { Rail } from './screens/shell/rail.tsx';
import { SignInScreen } from './screens/sign-in/sign-in-screen.tsx';
import { FullPageSpinner, Spinner } from './ui/spinner.tsx';
import { ResetPasswordScreen } from './screens/sign-in/reset-password-screen.tsx';

const AgentsScreen = lazyScreen(() => import('./screens/agents/agents-screen.tsx').then((m) => m.AgentsScreen));
const AgentScreen = lazyScreen(() => import('./screens/agent/agent-screen.tsx').then((m) => m.AgentScreen), 'agent-page');
const LlmTracesScreen = lazyScreen(() => import('./screens/llm-traces/llm-traces-screen.tsx').then((m) => m.default));
const ReportsScreen = lazyScreen(() => import('./screens/reports/reports-screen.tsx').then((m) => m.default), 'reports');
const ReportScreen = lazyScreen(() => import('./screens/reports/report-screen.tsx').then((m) => m.default), 'reports');
const BillingScreen = lazyScreen(() => import('./screens/settings/billing/billing-screen.tsx').then((m) => m.default), 'settings');
const CredentialsScreen = lazyScreen(() => import('./screens/settings/credentials/credentials-screen.tsx').then((m) => m.default), 'settings');
const TokensScreen = lazyScreen(() => import('./screens/settings/tokens/tokens-screen.tsx').then((m) => m.default), 'settings');
const WebhooksScreen = lazyScreen(() => import('./screens/settings/webhooks/webhooks-screen.tsx').then((m) => m.default), 'settings');
const NotificationsScreen = lazyScreen(() => import('./screens/settings/notifications/notifications-screen.tsx').then((m) => m.default), 'settings');
const HelpLinkScreen = lazyScreen(() => import('./screens/help-link/help-link-screen.tsx').then((m) => m.default));
const AdminDashboard = lazyScreen(() => import('./screens/admin/admin-dashboard.tsx').then((m) => m.default), 'admin');
const AdminAgentScreen = lazyScreen(() => import('./screens/admin/admin-agent-screen.tsx').then((m) => m.default), 'admin');
const AdminThreadScreen = lazyScreen(() => import('./screens/admin/admin-thread-screen.tsx').then((m) => m.default), 'admin');
const OpsDashboard = lazyScreen(() => import('./screens/admin/ops-dashboard.tsx').then((m) => m.default), 'admin');
const AuditScreen = lazyScreen(() => import('./screens/admin/audit-screen.tsx').then((m) => m.default), 'admin');
const ReplayScreen = lazyScreen(() => import('./screens/replay/replay-screen.tsx').then((m) => m.default), 'replay');
const SharedReplayScreen = lazyScreen(() => import('./screens/replay/replay-screen.tsx').then((m) => m.SharedReplayScreen), 'replay');

const SCREENS: Partial<Record<Extract<RouteMatch, { name: string }>['name'], Preloadable>> = {
  agents: AgentsScreen,
  agent: AgentScreen,
  reports: ReportsScreen,
  report: ReportScreen,
  'settings-billing': BillingScreen,
  'settings-credentials': CredentialsScreen,
  'settings-tokens': TokensScreen,
  'settings-webhooks': WebhooksScreen,
  'settings-notifications': NotificationsScreen,
  'help-link': HelpLinkScreen,
  admin: AdminDashboard,
  'admin-agent': AdminAgentScreen,
  'admin-thread': AdminThreadScreen,
  'admin-ops': OpsDashboard,
  'admin-audit': AuditScreen,
  'llm-traces': LlmTracesScreen,
  replay: ReplayScreen,
  'replay-shared': SharedReplayScreen,
};

/** Starts loading the screen of `path` (the page being opened), in parallel with the sign-in check. */
export function preloadScreen(path: string): void {
  const route = resolveRoute(path);
  if ('name' in route) void SCREENS[route.name]?.preload().catch(() => {}); // its render shows the error
}

/** With a session, the home screen's list is asked for beside the profile, not one round trip after it. */
function preloadData(): void {
  const route = resolveRoute(window.location.pathname);
  if ('name' in route && route.name === 'agents') preload(AGENTS_PATH);
}

export function App() {
  return (
    <AuthProvider onToken={preloadData}>
      <Gate />
    </AuthProvider>
  );
}

function Gate() {
  const auth = useAuth();
  const admin = useIsAdmin();
  const { path } = useLocation();
  // A reset link works signed in or out: it is about choosing a password, not about this session.
  if (path === '/reset-password') return <ResetPasswordScreen />;
  // So does a shared replay's link: the link itself is the permission, and the page stands alone.
  const shared = sharedReplayToken(path);
  if (shared !== null) {
    return (
      <Suspense fallback={<FullPageSpinner label="Loading replay" />}>
        <SharedReplayScreen key={shared} token={shared} />
      </Suspense>
    );
  }
  if (auth.status === 'loading') return <FullPageSpinner label="Signing in" />;
  if (auth.status === 'signed-out') return <SignInScreen />;
  return (
    <TitleProvider>
      <Shell isAdmin={admin}>
        <ImpersonationBanner me={auth.me} />
        <Screens isAdmin={admin} />
      </Shell>
    </TitleProvider>
  );
}

function sharedReplayToken(path: string): string | null {
  const route = resolveRoute(path);
  return 'name' in route && route.name === 'replay-shared' ? route.token : null;
}

function Shell({ isAdmin, children }: { isAdmin: boolean; children: ReactNode }) {
  const { title, action } = useTitleValue();
  return (
    <div className="app">
      <Rail isAdmin={isAdmin} />
      <div className="app-main">
        <header className="title-bar">
          <h1 className="title-bar-title">{title}</h1>
          {action && <div className="title-bar-action">{action}</div>}
        </header>
        <main className="app-content">{children}</main>
      </div>
    </div>
  );
}

const ADMIN_ROUTES = new Set(['admin', 'admin-agent', 'admin-thread', 'admin-ops', 'admin-audit', 'llm-traces']);

function Screens({ isAdmin }: { isAdmin: boolean }) {
  const { path } = useLocation();
  const route = resolveRoute(path);
  const redirect = 'redirect' in route ? route.redirect : null;
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);
  if ('redirect' in route) return null;
  if (ADMIN_ROUTES.has(route.name) && !isAdmin) return <Forbidden />;
  return (
    <Suspense fallback={<div className="page-message"><Spinner /></div>}>
      {screenFor(route)}
    </Suspense>
  );
}

function screenFor(route: Exclude<RouteMatch, { redirect: string }>): ReactNode {
  switch (route.name) {
    case 'agents':
      return <AgentsScreen />;
    case 'agent':
      // Keyed by id: another agent starts with fresh screen state (open modals, control mode).
      return <AgentScreen key={route.id} id={route.id} />;
    case 'reports':
      return <ReportsScreen />;
    case 'report':
      return <ReportScreen key={route.reportId} id={route.reportId} />;
    case 'settings-billing':
      return <BillingScreen />;
    case 'settings-credentials':
      return <CredentialsScreen />;
    case 'settings-tokens':
      return <TokensScreen />;
    case 'settings-webhooks':
      return <WebhooksScreen />;
    case 'settings-notifications':
      return <NotificationsScreen />;
    case 'help-link':
      return <HelpLinkScreen key={route.token} token={route.token} />;
    case 'admin':
      return <AdminDashboard />;
    case 'admin-agent':
      return <AdminAgentScreen key={route.agentId} id={route.agentId} />;
    case 'admin-thread':
      return <AdminThreadScreen key={route.threadId} id={route.threadId} />;
    case 'admin-ops':
      return <OpsDashboard />;
    case 'admin-audit':
      return <AuditScreen />;
    case 'llm-traces':
      return <LlmTracesScreen />;
    case 'replay':
      return <ReplayScreen key={route.runId} runId={route.runId} />;
    default:
      return <NotFound />;
  }
}
