import {
  ADMIN, byRole, cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, type, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EmailSettingsModal } from '../../src/screens/agent/email/email-settings-modal.tsx';
import { fromForm, toForm } from '../../src/screens/agent/email/email-form.ts';

const form = suite('Email settings form rules');

form('the prefix is trimmed, blank lines are dropped, empty values become null', () => {
  assert.equal(fromForm({ prefix: '  sales ', patterns: ' a@example.com \n\n  \n@example.org\r\n*.corp.example\n' }), {
    email_prefix: 'sales', email_accept_from_addresses: ['a@example.com', '@example.org', '*.corp.example'],
  });
  assert.equal(fromForm({ prefix: '   ', patterns: '\n \n' }), { email_prefix: null, email_accept_from_addresses: null });
  assert.equal(toForm({ email_prefix: null, email_accept_from_addresses: null }), { prefix: '', patterns: '' });
  assert.equal(toForm({ email_prefix: 'x', email_accept_from_addresses: ['a@b.co', '@c.co'] }), { prefix: 'x', patterns: 'a@b.co\n@c.co' });
});

const SETTINGS = {
  email_prefix: 'sales', email_accept_from_addresses: ['boss@example.com'],
  mail_domain: 'agents.example.com', email_address: 'sales@agents.example.com',
};

let closed = 0;
let saved = 0;
const modal = () => <EmailSettingsModal agentId={7} onClose={() => closed++} onSaved={() => saved++} />;
/** The field a <label> names (its first span is the label text). */
function labelled<T extends HTMLElement>(name: string): T {
  const label = [...document.querySelectorAll('label')].filter((l) => l.querySelector('span')?.textContent === name);
  if (label.length !== 1) throw new Error(`expected one field labelled ${name}, found ${label.length}`);
  return label[0].querySelector<T>('input, textarea')!;
}
const input = () => labelled<HTMLInputElement>('Email prefix');
const patterns = () => labelled<HTMLTextAreaElement>('Accept mail from');

function settingsApi(put: (call: Call) => unknown = (call) => ({ ...SETTINGS, ...(call.body as object) })) {
  return new FakeApi(ADMIN).on('GET /api/agents/7/email-settings', () => SETTINGS).on('PUT /api/agents/7/email-settings', put);
}

const ui = suite('Email settings modal');
ui.before.each(() => {
  closed = 0;
  saved = 0;
});
ui.after.each(cleanup);

ui('shows the loaded prefix, patterns one per line and the full address, which follows the prefix', async () => {
  await renderScreen(settingsApi(), modal());
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Email settings');
  assert.is(input().value, 'sales');
  assert.is(patterns().value, 'boss@example.com');
  assert.match(text(), 'sales@agents.example.com');
  await type(input(), '  help ');
  assert.match(text(), 'help@agents.example.com');
  await type(input(), '');
  assert.match(text(), 'No address: set a prefix to receive mail.');
});

ui('Save sends the trimmed prefix and the non-blank lines, then closes', async () => {
  const api = settingsApi();
  await renderScreen(api, modal());
  await type(input(), ' support ');
  await type(patterns(), 'a@example.com\n\n  @example.org  \n\n');
  await click(getRole('button', 'Save'));
  await settle();
  assert.equal(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body), [
    { email_prefix: 'support', email_accept_from_addresses: ['a@example.com', '@example.org'] },
  ]);
  assert.is(saved, 1);
  assert.is(closed, 1);
});

ui('empty fields are sent as null', async () => {
  const api = settingsApi();
  await renderScreen(api, modal());
  await type(input(), ' ');
  await type(patterns(), '\n  \n');
  await click(getRole('button', 'Save'));
  await settle();
  assert.equal(api.calls.find((c) => c.method === 'PUT')!.body, { email_prefix: null, email_accept_from_addresses: null });
});

ui('a taken prefix: Failed to save email settings with the 409 text; the edits stay', async () => {
  const api = settingsApi(() => json({ detail: 'The email prefix "taken" is already used by another agent' }, 409));
  await renderScreen(api, modal());
  await type(input(), 'taken');
  await click(getRole('button', 'Save'));
  await settle();
  assert.is(getRole('alert').textContent, 'Failed to save email settingsThe email prefix "taken" is already used by another agent');
  assert.is(input().value, 'taken');
  assert.is(closed, 0);
  assert.is(getRole('button', 'Save').hasAttribute('disabled'), false);
});

ui('a server failure says only Failed to save email settings', async () => {
  await renderScreen(settingsApi(() => json({ detail: 'Internal server error' }, 500)), modal());
  await click(getRole('button', 'Save'));
  await settle();
  assert.is(getRole('alert').textContent, 'Failed to save email settings');
});

ui('a failed load says Failed to load email settings; Retry loads again', async () => {
  let fail = true;
  const api = new FakeApi(ADMIN).on('GET /api/agents/7/email-settings', () => (fail ? json({ detail: 'boom' }, 500) : SETTINGS));
  await renderScreen(api, modal());
  assert.is(getRole('alert').querySelector('p')!.textContent, 'Failed to load email settings');
  assert.ok((getRole('button', 'Save') as HTMLButtonElement).disabled);
  fail = false;
  await click(getRole('button', 'Retry'));
  await settle();
  assert.is(byRole('alert').length, 0);
  assert.is(input().value, 'sales');
});

form.run();
ui.run();
