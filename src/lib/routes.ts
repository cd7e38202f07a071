// The route table of spec §2 as a pure function from a pathname to a named match or a redirect.
// Leaves out rendering and access checks (app.tsx and the screens decide those).

import { matchPath } from './router.ts';

export type RouteMatch =
  | { name: 'agents' }
  | { name: 'agent'; id: number }
  | { name: 'reports' }
  | { name: 'report'; reportId: number }
  | { name: 'settings-billing' }
  | { name: 'settings-credentials' }
  | { name: 'settings-tokens' }
  | { name: 'settings-webhooks' }
  | { name: 'settings-notifications' }
  | { name: 'admin' }
  | { name: 'admin-agent'; agentId: number }
  | { name: 'admin-thread'; threadId: number }
  | { name: 'admin-ops' }
  | { name: 'admin-audit' }
  | { name: 'llm-traces' }
  | { name: 'replay'; runId: number }
  | { name: 'replay-shared'; token: string }
  | { name: 'help-link'; token: string }
  | { name: 'not-found' }
  | { redirect: string };

type Params = Record<string, string>;

// First match wins; a resolver returning null falls through (a non-numeric id ends in not-found).
const TABLE: ReadonlyArray<[pattern: string, resolve: (params: Params) => RouteMatch | null]> = [
  ['/', () => ({ name: 'agents' })],
  ['/agent/:id', (p) => withId(p.id, (id) => ({ name: 'agent', id }))],
  ['/reports', () => ({ name: 'reports' })],
  ['/reports/:id', (p) => withId(p.id, (reportId) => ({ name: 'report', reportId }))],
  ['/settings/billing', () => ({ name: 'settings-billing' })],
  ['/settings/credentials', () => ({ name: 'settings-credentials' })],
  ['/settings/tokens', () => ({ name: 'settings-tokens' })],
  ['/settings/webhooks', () => ({ name: 'settings-webhooks' })],
  ['/settings/notifications', () => ({ name: 'settings-notifications' })],
  // '/settings' and any unknown child land on billing, the first page of the settings.
  ['/settings/*', () => ({ redirect: '/settings/billing' })],
  ['/admin', () => ({ name: 'admin' })],
  ['/admin/agents/:id', (p) => withId(p.id, (agentId) => ({ name: 'admin-agent', agentId }))],
  ['/admin/threads/:id', (p) => withId(p.id, (threadId) => ({ name: 'admin-thread', threadId }))],
  ['/admin/ops', () => ({ name: 'admin-ops' })],
  ['/admin/audit', () => ({ name: 'admin-audit' })],
  // The navigation links the ops dashboard as /admin/threads (spec §2).
  ['/admin/threads', () => ({ name: 'admin-ops' })],
  ['/llm-traces', () => ({ name: 'llm-traces' })],
  // A shared replay opens without sign-in (app.tsx); its token is opaque, any non-empty segment.
  ['/replay/shared/:token', (p) => ({ name: 'replay-shared', token: p.token })],
  ['/replay/:id', (p) => withId(p.id, (runId) => ({ name: 'replay', runId }))],
  // A help request's one-time link (issue 47): signed out, the sign-in page comes first (app.tsx), then this.
  ['/help/:token', (p) => ({ name: 'help-link', token: p.token })],
];

export function resolveRoute(path: string): RouteMatch {
  for (const [pattern, resolve] of TABLE) {
    const params = matchPath(pattern, path);
    const match = params && resolve(params);
    if (match) return match;
  }
  return { name: 'not-found' };
}

function withId(raw: string | undefined, build: (id: number) => RouteMatch): RouteMatch | null {
  return raw !== undefined && /^\d+$/.test(raw) ? build(Number(raw)) : null;
}
