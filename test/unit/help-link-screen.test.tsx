// A help request's one-time link (/help/<token>): signed in, it is used once and the agent's desktop opens with control
// (the address replaced, not pushed); a link that does not work shows the server's detail and the way to the agents;
// signed out, the sign-in page comes first and the link is used only after it. One suite.
import { cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, type, USER, waitFor } from './helpers/screen-harness.tsx';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { App } from '../../src/app.tsx';
import { resolveRoute } from '../../src/lib/routes.ts';
import { browserLocation, memoryLocation, setLocationSource } from '../../src/lib/router.ts';
import HelpLinkScreen from '../../src/screens/help-link/help-link-screen.tsx';

const test = suite('help link screen');
test.after.each(async () => {
  setLocationSource(browserLocation);
  await cleanup();
});

const EXPIRED = 'This link has expired or was already used';
const uses = (api: FakeApi) => api.apiCalls().filter((c) => c.path.startsWith('/api/help-links/')).map((c) => `${c.method} ${c.path}`);

test('signed in: uses the link once, then replaces the address with the agent\'s desktop in control', async () => {
  const at = memoryLocation('/help/tok-ok');
  setLocationSource(at);
  assert.equal(resolveRoute('/help/tok-ok'), { name: 'help-link', token: 'tok-ok' });
  let answer!: (r: Response) => void;
  const api = new FakeApi(USER).on('POST /api/help-links/tok-ok/use', () => new Promise<Response>((resolve) => (answer = resolve)));
  await renderScreen(api, <HelpLinkScreen token="tok-ok" />);
  assert.match(text(), "Opening the agent's desktop...");
  assert.is(document.querySelector('h1')!.textContent, 'Help request');
  answer(json({ agent_id: 7, thread_id: 31 }));
  await waitFor(() => at.entries[0] !== '/help/tok-ok', 'the navigation');
  assert.equal(at.entries, ['/agent/7?control=1']);
  assert.equal(uses(api), ['POST /api/help-links/tok-ok/use']);
});

test('the link is asked for once however often the page mounts', async () => {
  setLocationSource(memoryLocation('/help/tok-twice'));
  const api = new FakeApi(USER).on('POST /api/help-links/tok-twice/use', () => json({ detail: EXPIRED }, 404));
  await renderScreen(api, <><HelpLinkScreen token="tok-twice" /><HelpLinkScreen token="tok-twice" /></>);
  assert.equal(uses(api), ['POST /api/help-links/tok-twice/use']);
});

test('a link that does not work shows the detail and a link to the agents, and opens nothing', async () => {
  const at = memoryLocation('/help/tok-gone');
  setLocationSource(at);
  const api = new FakeApi(USER).on('POST /api/help-links/tok-gone/use', () => json({ detail: EXPIRED }, 404));
  await renderScreen(api, <HelpLinkScreen token="tok-gone" />);
  assert.is(getRole('alert').textContent, EXPIRED);
  const back = [...document.querySelectorAll('a')].find((a) => a.textContent === 'Go to your agents')!;
  assert.is(back.getAttribute('href'), '/');
  assert.equal(at.entries, ['/help/tok-gone']);
  await click(back);
  assert.equal(at.entries, ['/help/tok-gone', '/']);
});

test('a token with characters of its own is sent encoded', async () => {
  setLocationSource(memoryLocation('/help/a%2Fb'));
  const api = new FakeApi(USER);
  await renderScreen(api, <HelpLinkScreen token="a/b" />);
  assert.equal(uses(api), ['POST /api/help-links/a%2Fb/use']);
  assert.is(getRole('alert').textContent, 'Not Found'); // the fake's 404 detail
});

test('signed out: the sign-in page first, and the link is used only after signing in', async () => {
  const at = memoryLocation('/help/tok-later');
  setLocationSource(at);
  const api = new FakeApi(USER)
    .on('POST /api/auth/sign-in', () => ({ token: `e30.${btoa(JSON.stringify({ exp: 4_102_444_800 }))}.sig` }))
    .on('POST /api/help-links/tok-later/use', () => json({ detail: EXPIRED }, 404));
  globalThis.fetch = api.fetch as typeof fetch;
  const el = document.body.appendChild(document.createElement('div'));
  const root = createRoot(el);
  try {
    await act(async () => root.render(<App />)); // no session hint in storage: signed out at once
    await settle();
    assert.match(text(), 'Sign in to Agent Workspace');
    assert.equal(uses(api), []);
    const input = (kind: string) => document.querySelector<HTMLInputElement>(`input[type="${kind}"]`)!;
    await type(input('email'), USER.email);
    await type(input('password'), 'a password');
    await act(async () => void document.querySelector('form')!.requestSubmit());
    await waitFor(() => text().includes(EXPIRED), 'the link page after sign-in');
    assert.equal(uses(api), ['POST /api/help-links/tok-later/use']);
    assert.equal(at.entries, ['/help/tok-later']);
  } finally {
    await act(async () => root.unmount());
  }
});

test.run();
