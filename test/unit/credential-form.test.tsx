// The credential form: what a new credential and an edit send (only the changed keys; a secret only when typed,
// "" on Remove), the 4 KB check, and where a 422's detail shows.
import { byRole, cleanup, click, getRole, json, renderScreen, settle, type } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bodies, dialog, errorOf, field, GITHUB, SHOP, vaultApi } from './helpers/vault-fakes.ts';
import CredentialsScreen from '../../src/screens/settings/credentials/credentials-screen.tsx';

const press = (name: string) => click(getRole('button', name));

// --- the form

const form = suite('credentials: the form');
form.after.each(cleanup);

form('a new credential sends every key, the targets one per line without blanks', async () => {
  const api = vaultApi([]).on('POST /api/credentials', (c) => json({ ...SHOP, id: 3, ...(c.body as object), has_password: true }, 201));
  await renderScreen(api, <CredentialsScreen />);
  await press('New credential');
  assert.is(field('Password').getAttribute('autocomplete'), 'new-password');
  assert.is(field('TOTP secret').getAttribute('placeholder'), 'otpauth://… or base32 key');
  assert.match(dialog().textContent!, 'window:<class>:<title with *>');
  await type(field('Name'), ' Bank ');
  await type(field('Username'), 'ada');
  await type(field('Password'), 's3cret');
  await type(field('Targets'), 'https://bank.example.com\n\n  window:Bank  \n');
  await press('Create');
  await settle();
  assert.equal(bodies(api, 'POST'), [
    { name: 'Bank', username: 'ada', password: 's3cret', totp: '', targets: ['https://bank.example.com', 'window:Bank'], notes: '' },
  ]);
  assert.is(byRole('dialog').length, 0);
  assert.match(document.querySelector('.credential-card')!.textContent!, '••••••••');
});

form('editing sends only the changed keys; empty secret fields read "Unchanged" and send nothing', async () => {
  const api = vaultApi().on('PATCH /api/credentials/1', (c) => ({ ...GITHUB, ...(c.body as object) }));
  await renderScreen(api, <CredentialsScreen />);
  await press('Edit GitHub');
  assert.is(field('Password').value, '');
  assert.is(field('Password').getAttribute('placeholder'), 'Unchanged');
  assert.is(field('TOTP secret').getAttribute('placeholder'), 'Unchanged');
  assert.is(field('Username').value, 'ada');
  await type(field('Username'), 'ada.l');
  await press('Save');
  await settle();
  assert.equal(bodies(api, 'PATCH'), [{ username: 'ada.l' }]);

  await press('Edit GitHub');
  await type(field('Password'), 'n3w');
  await press('Save');
  await settle();
  assert.equal(bodies(api, 'PATCH')[1], { password: 'n3w' });
});

form('Remove sends "" for the saved password or TOTP secret; it is offered only when one is saved', async () => {
  const api = vaultApi().on('PATCH /api/credentials/1', (c) => ({ ...GITHUB, ...(c.body as object), has_totp: false }));
  await renderScreen(api, <CredentialsScreen />);
  await press('Edit GitHub');
  await click(field('Remove the saved TOTP secret'));
  assert.ok(field('TOTP secret').disabled);
  await press('Save');
  await settle();
  assert.equal(bodies(api, 'PATCH'), [{ totp: '' }]);
  await press('Edit Shop');
  assert.not.match(dialog().textContent!, 'Remove the saved');
});

form("a 422's detail shows beside the field it names, the rest at the top; nothing saved closes nothing", async () => {
  const api = vaultApi().on('PATCH /api/credentials/1', () => json({ detail: 'targets[1]: may not have a path' }, 422));
  await renderScreen(api, <CredentialsScreen />);
  await press('Edit GitHub');
  await type(field('Targets'), 'https://github.com\nhttps://github.com/login');
  await press('Save');
  await settle();
  assert.is(errorOf(field('Targets')), 'https://github.com/login: may not have a path');
  assert.is(field('Targets').getAttribute('aria-invalid'), 'true');
  assert.is(byRole('alert').length, 0, 'no top message for a named field');

  // The server's own checks answer with a {loc, msg} list.
  api.on('PATCH /api/credentials/1', () => json({ detail: [{ loc: ['body', 'totp'], msg: 'totp: not an otpauth://totp URI or a base32 key' }] }, 422));
  await type(field('TOTP secret'), 'nope');
  await press('Save');
  await settle();
  assert.is(errorOf(field('TOTP secret')), 'Not an otpauth://totp URI or a base32 key');

  api.on('PATCH /api/credentials/1', () => json({ detail: 'The vault is read-only' }, 422));
  await press('Save');
  await settle();
  assert.is(getRole('alert').textContent, 'The vault is read-only');
});

form('a value over 4 KB is refused before it is sent', async () => {
  const api = vaultApi();
  await renderScreen(api, <CredentialsScreen />);
  await press('Edit GitHub');
  await type(field('Password'), 'x'.repeat(4097));
  await press('Save');
  await settle();
  assert.is(errorOf(field('Password')), 'At most 4 KB');
  assert.equal(bodies(api, 'PATCH'), []);
});

form.run();

