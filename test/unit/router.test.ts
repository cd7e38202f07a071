import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { browserLocation, Link, matchPath, memoryLocation, navigate, setLocationSource, useLocation } from '../../src/lib/router.ts';
import { resolveRoute } from '../../src/lib/routes.ts';

// ---

const match = suite('router: matchPath');

match('matches static paths and extracts named params', () => {
  assert.equal(matchPath('/reports', '/reports'), {});
  assert.equal(matchPath('/admin/threads/:threadId', '/admin/threads/12'), { threadId: '12' });
  assert.equal(matchPath('/a/:x/b/:y', '/a/1/b/2'), { x: '1', y: '2' });
});

match('returns null for other paths, missing or extra segments and empty params', () => {
  assert.is(matchPath('/reports', '/report'), null);
  assert.is(matchPath('/agent/:id', '/agent'), null);
  assert.is(matchPath('/agent/:id', '/agent/1/2'), null);
  assert.is(matchPath('/agent/:id', '/agent//'), null);
  assert.is(matchPath('/', '/agents'), null);
});

match('tolerates a trailing slash on either side', () => {
  assert.equal(matchPath('/agent/:id', '/agent/7/'), { id: '7' });
  assert.equal(matchPath('/reports/', '/reports'), {});
  assert.equal(matchPath('/', '/'), {});
  assert.equal(matchPath('/', ''), {});
});

match('decodes params and fails safe on malformed escapes', () => {
  assert.equal(matchPath('/u/:name', '/u/J%C3%BCrgen%20K'), { name: 'Jürgen K' });
  assert.is(matchPath('/u/:name', '/u/%E0%A4%A'), null);
  assert.is(matchPath('/u/:name', '/u/100%'), null);
});

match('lets a trailing * take the rest of the path', () => {
  assert.equal(matchPath('/settings/*', '/settings/a/b'), { '*': 'a/b' });
  assert.equal(matchPath('/settings/*', '/settings'), { '*': '' });
  assert.is(matchPath('/settings/*', '/other'), null);
});

match.run();

// ---

let root: Root | null = null;
const container = () => document.getElementById('root')!;

async function render(element: React.ReactElement): Promise<void> {
  const el = document.createElement('div');
  el.id = 'root';
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(element));
}

function cleanup(): void {
  if (root) act(() => root!.unmount());
  root = null;
  reset();
}

function ShowLocation() {
  const { path, search } = useLocation();
  return createElement('p', null, `${path}|${search}`);
}

const location = suite('router: navigate and useLocation');
location.before.each(cleanup);
location.after.each(cleanup);

location('renders the current path and search', async () => {
  history.replaceState(null, '', '/reports?sort=asc');
  await render(createElement(ShowLocation));
  assert.is(container().textContent, '/reports|?sort=asc');
});

location('re-renders on navigate() and pushes a history entry', async () => {
  await render(createElement(ShowLocation));
  const before = history.length;
  await act(async () => navigate('/agent/7?thread=3'));
  assert.is(container().textContent, '/agent/7|?thread=3');
  assert.is(window.location.pathname, '/agent/7');
  assert.is(history.length, before + 1);
});

location('replaces the current entry with { replace: true }', async () => {
  await render(createElement(ShowLocation));
  const before = history.length;
  await act(async () => navigate('/settings/billing', { replace: true }));
  assert.is(container().textContent, '/settings/billing|');
  assert.is(history.length, before);
});

location('re-renders when code outside the router calls history.pushState or fires popstate', async () => {
  await render(createElement(ShowLocation));
  await act(async () => history.pushState(null, '', '/admin'));
  assert.is(container().textContent, '/admin|');
  await act(async () => {
    history.replaceState(null, '', '/llm-traces');
    dispatchEvent(new PopStateEvent('popstate'));
  });
  assert.is(container().textContent, '/llm-traces|');
});

location.run();

// ---

const memory = suite('router: memory location (wouter-style, for tests)');
memory.before.each(cleanup);
memory.after.each(() => {
  cleanup();
  setLocationSource(browserLocation);
});

memory('useLocation, navigate and Link work on a memory location and leave window.history alone', async () => {
  const mem = memoryLocation('/agent/3?thread=1');
  setLocationSource(mem);
  const before = history.length;
  await render(createElement('div', null, createElement(Link, { href: '/reports' }, 'Reports'), createElement(ShowLocation)));
  assert.is(container().textContent, 'Reports/agent/3|?thread=1');
  await act(async () => navigate('/llm-traces?page=2'));
  assert.is(container().textContent, 'Reports/llm-traces|?page=2');
  await act(async () => container().querySelector('a')!.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 })));
  assert.is(container().textContent, 'Reports/reports|');
  await act(async () => navigate('settings', { replace: true }));
  assert.equal(mem.entries, ['/agent/3?thread=1', '/llm-traces?page=2', '/settings']);
  assert.is(window.location.pathname, '/');
  assert.is(history.length, before);
});
memory.run();

// ---

const link = suite('router: Link');
link.before.each(cleanup);
link.after.each(cleanup);

/** Clicks the first <a> and reports whether the app prevented the browser's default navigation. */
async function click(init: MouseEventInit): Promise<boolean> {
  let prevented = false;
  // Runs after React's root listener; stops happy-dom from acting out the browser's navigation.
  const observe = (event: Event) => {
    prevented = event.defaultPrevented;
    event.preventDefault();
  };
  document.addEventListener('click', observe);
  await act(async () => {
    container().querySelector('a')!.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, ...init }));
  });
  document.removeEventListener('click', observe);
  return prevented;
}

function App(props: Partial<React.ComponentProps<typeof Link>>) {
  return createElement('div', null,
    createElement(Link, { href: '/reports', className: 'nav', ...props }, 'Reports'),
    createElement(ShowLocation));
}

link('renders a plain anchor with its props', async () => {
  await render(createElement(App));
  const a = container().querySelector('a')!;
  assert.is(a.getAttribute('href'), '/reports');
  assert.is(a.className, 'nav');
  assert.is(a.textContent, 'Reports');
});

link('navigates in-app on a plain left click', async () => {
  await render(createElement(App));
  assert.ok(await click({ button: 0 }));
  assert.is(window.location.pathname, '/reports');
  assert.match(container().textContent!, '/reports|');
});

link('leaves modified, middle-button and new-tab clicks to the browser', async () => {
  await render(createElement(App));
  for (const init of [{ ctrlKey: true }, { metaKey: true }, { shiftKey: true }, { altKey: true }, { button: 1 }]) {
    assert.not.ok(await click({ button: 0, ...init }), JSON.stringify(init));
  }
  assert.is(window.location.pathname, '/');
  cleanup();
  await render(createElement(App, { target: '_blank' }));
  assert.not.ok(await click({ button: 0 }));
  assert.is(window.location.pathname, '/');
});

link('leaves links to other origins to the browser', async () => {
  await render(createElement(App, { href: 'https://example.com/docs' }));
  assert.not.ok(await click({ button: 0 }));
  assert.is(window.location.pathname, '/');
});

link("calls the caller's onClick, which can cancel the navigation", async () => {
  let calls = 0;
  await render(createElement(App, { onClick: (e: React.MouseEvent) => (calls++, e.preventDefault()) }));
  await click({ button: 0 });
  assert.is(calls, 1);
  assert.is(window.location.pathname, '/');
});

link.run();

// ---

const routes = suite('routes: resolveRoute (spec §2)');

routes('resolves every screen of the route table', () => {
  assert.equal(resolveRoute('/'), { name: 'agents' });
  assert.equal(resolveRoute('/agent/42'), { name: 'agent', id: 42 });
  assert.equal(resolveRoute('/reports'), { name: 'reports' });
  assert.equal(resolveRoute('/reports/9'), { name: 'report', reportId: 9 });
  assert.equal(resolveRoute('/settings/billing'), { name: 'settings-billing' });
  assert.equal(resolveRoute('/admin'), { name: 'admin' });
  assert.equal(resolveRoute('/admin/agents/3'), { name: 'admin-agent', agentId: 3 });
  assert.equal(resolveRoute('/admin/threads/5'), { name: 'admin-thread', threadId: 5 });
  assert.equal(resolveRoute('/admin/ops'), { name: 'admin-ops' });
  assert.equal(resolveRoute('/llm-traces'), { name: 'llm-traces' });
});

routes('sends /admin/threads to the ops dashboard', () => {
  assert.equal(resolveRoute('/admin/threads'), { name: 'admin-ops' });
  assert.equal(resolveRoute('/admin/threads/'), { name: 'admin-ops' });
});

routes('redirects /settings and unknown settings children to billing', () => {
  for (const path of ['/settings', '/settings/', '/settings/profile', '/settings/billing/extra']) {
    assert.equal(resolveRoute(path), { redirect: '/settings/billing' }, path);
  }
});

routes('tolerates trailing slashes', () => {
  assert.equal(resolveRoute('/agent/42/'), { name: 'agent', id: 42 });
  assert.equal(resolveRoute('/reports/'), { name: 'reports' });
  assert.equal(resolveRoute('/settings/billing/'), { name: 'settings-billing' });
  assert.equal(resolveRoute('/llm-traces/'), { name: 'llm-traces' });
});

routes('accepts only all-digit ids', () => {
  for (const path of ['/agent/abc', '/agent/7a', '/agent/-1', '/agent/1.5', '/agent/%20', '/reports/x', '/admin/agents/x', '/admin/threads/tmp-1']) {
    assert.equal(resolveRoute(path), { name: 'not-found' }, path);
  }
});

routes('answers not-found for everything else', () => {
  for (const path of ['/agents', '/agent', '/admin/ops/x', '/admin/agents', '/nope', '/reports/1/2', '/agent/%E0%A4%A']) {
    assert.equal(resolveRoute(path), { name: 'not-found' }, path);
  }
});

routes.run();
