// The API tokens settings screen: the list (a prefix, never a secret) with its statuses, Revoke, the New token form
// (what it sends, the secret shown once, a 422's detail) and what only an admin gets (the Admin scope, "All tokens").
import { act } from 'react';
import { ADMIN, byRole, cleanup, click, dialogs, FakeApi, getRole, json, renderScreen, settle, text, type, USER } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BACKUP, CI, OTHERS, tokenApi } from './helpers/token-fakes.ts';
import { bodies, dialog, errorOf, field } from './helpers/vault-fakes.ts';
import { resolveRoute } from '../../src/lib/routes.ts';
import TokensScreen from '../../src/screens/settings/tokens/tokens-screen.tsx';

const press = (name: string) => click(getRole('button', name));
const table = (label: string) => document.querySelector(`table[aria-label="${label}"]`);
/** The cells of a table's rows, the actions column left out. */
const rows = (label: string) =>
  [...table(label)!.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].slice(0, -1).map((td) => td.textContent));
const headings = () => [...document.querySelectorAll('h2, h3')].map((h) => h.textContent);
const options = (select: HTMLSelectElement) => [...select.options].map((o) => o.textContent);

/** Picks an option the way React listens for it (the native value setter, then 'change'). */
async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(select, value);
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

// --- the list

const list = suite('tokens: the list');
list.after.each(cleanup);

list('shows each token by name, scope and prefix, with its dates and status; only active ones can be revoked', async () => {
  await renderScreen(tokenApi(), <TokensScreen />);
  assert.match(text(), 'Call the API from other software with Authorization: Bearer <token>.');
  const shown = rows('Your API tokens');
  assert.equal(shown.map((r) => [r[0], r[1], r[2], r[6]]), [
    ['CI', 'Read', 'aw_Xy3k9Q…', 'Active'],
    ['Backup', 'Write', 'aw_Bk7pL2…', 'Active'],
    ['Deploy', 'Write', 'aw_Dp0mZ1…', 'Expired'],
    ['Old script', 'Read', 'aw_Ol4dQ8…', 'Revoked'],
  ]);
  assert.equal([shown[1][4], shown[1][5]], ['Never', 'Never'], 'no expiry, never used');
  assert.match(shown[0][4]!, /^\d{4}-\d\d-\d\d /);
  assert.equal(byRole('button', /^Revoke/).map((b) => b.getAttribute('aria-label')), ['Revoke CI', 'Revoke Backup']);
  assert.equal([...document.querySelectorAll('thead th')].map((th) => th.textContent),
    ['Name', 'Scope', 'Prefix', 'Created', 'Expires', 'Last used', 'Status', 'Actions']);
});

list('says so while loading, on an error (with the detail) and when empty', async () => {
  await renderScreen(new FakeApi(USER).on('GET /api/tokens', () => new Promise(() => {})), <TokensScreen />);
  assert.is(getRole('status').textContent, 'Loading tokens...');
  await cleanup();
  await renderScreen(new FakeApi(USER).on('GET /api/tokens', () => json({ detail: 'Tokens are resting' }, 503)), <TokensScreen />);
  assert.is(getRole('alert').textContent, 'Error loading tokens: Tokens are resting');
  await cleanup();
  await renderScreen(tokenApi(USER, []), <TokensScreen />);
  assert.match(text(), 'No API tokens yet');
  assert.is(table('Your API tokens'), null);
});

list('the settings nav has API tokens after Credentials (Webhooks after it), marked as the page shown', async () => {
  history.replaceState(null, '', '/settings/tokens');
  await renderScreen(tokenApi(), <TokensScreen />);
  const nav = document.querySelector('nav[aria-label="Settings"]')!;
  const links = [...nav.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('aria-current')]);
  assert.equal(links, [['Billing', null], ['Credentials', null], ['API tokens', 'page'], ['Webhooks', null], ['Notifications', null]]);
  assert.equal(resolveRoute('/settings/tokens'), { name: 'settings-tokens' });
});

list('Revoke asks first, then DELETEs the token, which then reads Revoked', async () => {
  const api = tokenApi();
  await renderScreen(api, <TokensScreen />);
  dialogs.answer = false;
  await press('Revoke CI');
  assert.equal(dialogs.confirms, ['Revoke CI? Software using it stops working at once.']);
  assert.equal(bodies(api, 'DELETE'), []);
  dialogs.answer = true;
  await press('Revoke CI');
  await settle();
  assert.equal(api.apiCalls().filter((c) => c.method === 'DELETE').map((c) => c.path), ['/api/tokens/4']);
  assert.is(rows('Your API tokens')[0][6], 'Revoked');
  assert.equal(byRole('button', /^Revoke/).map((b) => b.getAttribute('aria-label')), ['Revoke Backup']);
});

list.run();

// --- the New token form

const form = suite('tokens: the new token form');
form.after.each(async () => {
  Reflect.deleteProperty(navigator, 'clipboard'); // the stub below, gone before the next test
  await cleanup();
});
const SECRET = 'aw_Nw5tK1secretsecretsecretsecretsecret';
const made = (body: unknown) => json({ ...CI, id: 5, prefix: SECRET.slice(0, 10), ...(body as object), token: SECRET }, 201);

form('POSTs the chosen name, scope and expiry, then shows the token once with a warning; Done takes it away', async () => {
  const api = tokenApi().on('POST /api/tokens', (c) => made(c.body));
  await renderScreen(api, <TokensScreen />);
  await press('New token');
  assert.equal(options(field('Scope') as unknown as HTMLSelectElement), ['Read — GET requests only', 'Write — everything but admin']);
  const expires = field('Expires') as unknown as HTMLSelectElement;
  assert.equal(options(expires), ['7 days', '30 days', '90 days', '1 year', 'Never']);
  assert.is(expires.selectedOptions[0].textContent, '30 days');
  await type(field('Name'), ' Nightly export ');
  await choose(field('Scope') as unknown as HTMLSelectElement, 'write');
  await choose(expires, '90');
  await press('Create');
  await settle();
  assert.equal(bodies(api, 'POST'), [{ name: 'Nightly export', scope: 'write', expires_in_days: 90 }]);

  assert.is(field('Your new token').value, SECRET);
  assert.ok(field('Your new token').readOnly);
  assert.match(dialog().textContent!, 'Copy it now: it will not be shown again.');
  const copied: string[] = [];
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } });
  await press('Copy');
  assert.equal(copied, [SECRET]);
  assert.is(dialog().querySelector('[role="status"]')!.textContent, 'Copied');
  // The list has the new token by its prefix, never its secret.
  assert.is(rows('Your API tokens')[0][2], 'aw_Nw5tK1s…');

  await press('Done');
  assert.is(byRole('dialog').length, 0);
  assert.not.ok(document.body.innerHTML.includes(SECRET));
  assert.is(rows('Your API tokens').length, 5);
});

form('Never sends no expiry; an empty name is refused before sending', async () => {
  const api = tokenApi().on('POST /api/tokens', (c) => made(c.body));
  await renderScreen(api, <TokensScreen />);
  await press('New token');
  await press('Create');
  assert.is(errorOf(field('Name')), 'A token needs a name');
  assert.equal(bodies(api, 'POST'), []);
  await type(field('Name'), 'Forever');
  await choose(field('Expires') as unknown as HTMLSelectElement, 'never');
  await press('Create');
  await settle();
  assert.equal(bodies(api, 'POST'), [{ name: 'Forever', scope: 'read', expires_in_days: null }]);
});

form("a 422's detail shows beside the field it names, the rest at the top; the form stays open", async () => {
  const refusal = { detail: [{ loc: ['body', 'scope'], msg: 'scope: only admins may make admin tokens' }] };
  const api = tokenApi().on('POST /api/tokens', () => json(refusal, 422));
  await renderScreen(api, <TokensScreen />);
  await press('New token');
  await type(field('Name'), 'Root');
  await press('Create');
  await settle();
  assert.is(errorOf(field('Scope')), 'Only admins may make admin tokens');
  assert.is(field('Scope').getAttribute('aria-invalid'), 'true');
  assert.is(byRole('alert').length, 0, 'no top message for a named field');

  api.on('POST /api/tokens', () => json({ detail: 'Forbidden: a token is made by its own user, not while impersonating' }, 403));
  await press('Create');
  await settle();
  assert.is(getRole('alert').textContent, 'Forbidden: a token is made by its own user, not while impersonating');
  assert.is(byRole('dialog').length, 1);
});

form.run();

// --- what only an admin gets

const admin = suite('tokens: admins');
admin.after.each(cleanup);

admin('an admin is offered the Admin scope and sees every user\'s tokens, each active one revocable', async () => {
  const api = tokenApi(ADMIN, [CI]).on('GET /api/admin/tokens', () => [...OTHERS, { ...CI, user_id: 1, user_email: ADMIN.email }]);
  api.on('DELETE /api/tokens/9', () => new Response(null, { status: 204 }));
  await renderScreen(api, <TokensScreen />);
  assert.ok(headings().includes('All tokens'));
  assert.equal(rows('All tokens').map((r) => [r[0], r[1], r[7]]), [
    ['bea@example.test', 'Sync', 'Active'],
    ['cy@example.test', 'Gone', 'Revoked'],
    ['admin@example.test', 'CI', 'Active'],
  ]);
  assert.is(table('All tokens')!.querySelector('th')!.textContent, 'User');
  assert.equal(byRole('button', /^Revoke/).map((b) => b.getAttribute('aria-label')),
    ['Revoke CI', 'Revoke Sync of bea@example.test', 'Revoke CI of admin@example.test']);

  await press('Revoke Sync of bea@example.test');
  await settle();
  assert.equal(dialogs.confirms, ['Revoke Sync? Software using it stops working at once.']);
  assert.equal(api.apiCalls().filter((c) => c.method === 'DELETE').map((c) => c.path), ['/api/tokens/9']);
  assert.ok(api.apiCalls().filter((c) => c.path === '/api/admin/tokens').length >= 2, 'the list is read again');

  await press('New token');
  assert.equal(options(field('Scope') as unknown as HTMLSelectElement).at(-1), 'Admin — everything');
});

admin('a user gets neither: no Admin scope, no "All tokens", no request for them', async () => {
  const api = tokenApi(USER, [BACKUP]);
  await renderScreen(api, <TokensScreen />);
  assert.not.ok(headings().includes('All tokens'));
  assert.is(table('All tokens'), null);
  assert.equal(api.apiCalls().filter((c) => c.path === '/api/admin/tokens'), []);
  await press('New token');
  assert.not.ok(options(field('Scope') as unknown as HTMLSelectElement).includes('Admin — everything'));
});

admin.run();
