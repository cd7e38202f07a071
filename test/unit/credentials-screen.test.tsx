// The credentials settings screen: the list (dots, never values), its states, the settings nav, Delete, the Grants
// dialog and the fill history. The form has its own file (credential-form.test.tsx).
import { byRole, cleanup, click, dialogs, FakeApi, getRole, json, renderScreen, settle, text, USER } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bodies, dialog, field, GITHUB, SHOP, vaultApi } from './helpers/vault-fakes.ts';
import { resolveRoute } from '../../src/lib/routes.ts';
import type { CredentialFill } from '../../src/lib/types.ts';
import CredentialsScreen from '../../src/screens/settings/credentials/credentials-screen.tsx';

const press = (name: string) => click(getRole('button', name));

// --- the list

const list = suite('credentials: the list');
list.after.each(cleanup);

list('shows each credential without its values: dots for a saved password, a TOTP badge, targets, agents', async () => {
  // Even a server that slipped a value into its answer does not get it on screen.
  await renderScreen(vaultApi([{ ...GITHUB, password: 'hunter2', totp: 'JBSWY3DP' }, SHOP]), <CredentialsScreen />);
  const [github, shop] = [...document.querySelectorAll('.credential-card')].map((c) => c.textContent!);
  assert.match(github, 'GitHub');
  assert.match(github, 'TOTP');
  assert.match(github, 'Ask before each use');
  assert.match(github, 'Password••••••••');
  assert.match(github, 'https://github.comhttps://*.github.com');
  assert.match(github, 'AgentsAlice');
  assert.match(github, 'Changed 3d ago');
  assert.not.match(text(), 'hunter2');
  assert.not.match(text(), 'JBSWY3DP');
  assert.match(shop, 'No password');
  assert.not.match(shop, 'TOTP');
  assert.not.match(shop, 'Ask before each use');
  assert.match(text(), 'agents type these into sign-in forms for you and never see them');
});

list('says so while loading, on an error (with the detail) and when empty', async () => {
  await renderScreen(new FakeApi(USER).on('GET /api/credentials', () => new Promise(() => {})), <CredentialsScreen />);
  assert.is(getRole('status').textContent, 'Loading credentials...');
  await cleanup();
  await renderScreen(new FakeApi(USER).on('GET /api/credentials', () => json({ detail: 'Vault is locked' }, 503)), <CredentialsScreen />);
  assert.is(getRole('alert').textContent, 'Error loading credentials: Vault is locked');
  await cleanup();
  await renderScreen(vaultApi([]), <CredentialsScreen />);
  assert.match(text(), 'No credentials yet');
});

list('the settings nav has Credentials between Billing and API tokens, marked as the page shown', async () => {
  history.replaceState(null, '', '/settings/credentials');
  await renderScreen(vaultApi(), <CredentialsScreen />);
  const nav = document.querySelector('nav[aria-label="Settings"]')!;
  const links = [...nav.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('aria-current')]);
  assert.equal(links, [['Billing', null], ['Credentials', 'page'], ['API tokens', null], ['Webhooks', null], ['Notifications', null]]);
  assert.equal(resolveRoute('/settings/credentials'), { name: 'settings-credentials' });
});

list('Delete asks first, then removes the credential', async () => {
  const api = vaultApi().on('DELETE /api/credentials/2', () => new Response(null, { status: 204 }));
  await renderScreen(api, <CredentialsScreen />);
  dialogs.answer = false;
  await press('Delete Shop');
  assert.equal(dialogs.confirms, ['Delete the credential "Shop"? Your agents can no longer use it.']);
  assert.equal(bodies(api, 'DELETE'), []);
  dialogs.answer = true;
  await press('Delete Shop');
  await settle();
  assert.is(bodies(api, 'DELETE').length, 1);
  assert.equal([...document.querySelectorAll('.credential-name')].map((h) => h.textContent), ['GitHub']);
});

list.run();

// --- grants and fill history

const more = suite('credentials: grants and fill history');
more.after.each(cleanup);

more('Grants PUTs the ticked agents and the ask-each-time flag, and the card shows the result', async () => {
  const api = vaultApi().on('PUT /api/credentials/1/grants', (c) => ({ ...GITHUB, grants: c.body }));
  await renderScreen(api, <CredentialsScreen />);
  await press('Grants of GitHub');
  assert.ok(field('Alice').checked);
  assert.ok(field('Ask me before each use').checked);
  await click(field('Bob'));
  await click(field('Ask me before each use'));
  await press('Save');
  await settle();
  assert.equal(bodies(api, 'PUT'), [{ agent_ids: [7, 8], ask_each_time: false }]);
  assert.is(byRole('dialog').length, 0);
  const card = document.querySelector('.credential-card')!.textContent!;
  assert.match(card, 'AgentsAlice, Bob');
  assert.not.match(card, 'Ask before each use');
});

const FILLS: CredentialFill[] = [
  { at: '2026-03-02T10:00:00Z', agent_id: 7, thread_id: 42, field: 'password', target: 'https://github.com', outcome: 'filled' },
  { at: '2026-03-01T10:00:00Z', agent_id: 9, thread_id: 40, field: 'totp', target: 'https://evil.example', outcome: 'refused: not a target' },
];

more('Fill history lists the fills with agent names and thread links; none says "No fills yet"', async () => {
  const api = vaultApi().on('GET /api/credentials/1/fills', () => FILLS).on('GET /api/credentials/2/fills', () => []);
  await renderScreen(api, <CredentialsScreen />);
  await press('Fill history of GitHub');
  await settle();
  const rows = [...dialog().querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent));
  assert.equal(rows, [
    ['Alice', 'Thread #42', 'Password', 'https://github.com', 'filled'],
    ['Agent #9', 'Thread #40', 'TOTP code', 'https://evil.example', 'refused: not a target'],
  ]);
  assert.is(dialog().querySelector('a')!.getAttribute('href'), '/agent/7?thread=42');
  assert.is(dialog().querySelectorAll('[data-tone="held"]').length, 1);
  await click(byRole('button', 'Close')[0]);
  await press('Fill history of Shop');
  await settle();
  assert.match(dialog().textContent!, 'No fills yet');
});

more.run();
