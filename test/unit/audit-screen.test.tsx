import { ADMIN, cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, USER, type Call } from './helpers/screen-harness.tsx';
import { act } from 'react';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AuditEvent } from '../../src/lib/audit-api.ts';
import { auditSentence } from '../../src/screens/admin/audit-sentence.ts';
import AuditScreen from '../../src/screens/admin/audit-screen.tsx';
import AdminDashboard from '../../src/screens/admin/admin-dashboard.tsx';

let next = 1;
function event(action: string, fields: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: next++, at: '2026-11-26T10:00:00.000000Z', instance: 'host:1', actor_type: 'user', actor_id: 2, actor_label: 'ann@example.test',
    impersonator_id: null, impersonator_label: null, action, target_type: null, target_id: null, request_id: 'r-1', ip: '127.0.0.1',
    user_agent: 'test', detail: {}, prev_hash: '', hash: 'ab'.repeat(32), ...fields,
  };
}
const asAdmin = { impersonator_id: 1, impersonator_label: 'admin@example.test' };

// --- one sentence per event

const words = suite('audit: sentences');

words('names the admin behind an impersonation, the mail and its recipient', () => {
  const e = event('mail.approve', { ...asAdmin, target_type: 'message', target_id: '12', detail: { to: 'bob@example.test', subject: 'Hi' } });
  assert.is(auditSentence(e), 'admin@example.test as ann@example.test approved mail #12 to bob@example.test');
});

words('reads each kind of actor and target', () => {
  const cases: [AuditEvent, string][] = [
    [event('auth.sign_in'), 'ann@example.test signed in'],
    [event('auth.sign_in_failed', { actor_type: 'system', actor_id: null, actor_label: null, detail: { email: 'ann@example.test' } }),
      'Someone failed to sign in as ann@example.test'],
    [event('agent.create', { ...asAdmin, target_type: 'agent', target_id: '7', detail: { name: 'Alice' } }),
      'admin@example.test as ann@example.test created agent “Alice” (#7)'],
    [event('agent.delete', { target_type: 'agent', target_id: '7', detail: { name: 'Alice' } }), 'ann@example.test deleted agent “Alice” (#7)'],
    [event('agent.update', { target_type: 'agent', target_id: '7', detail: { field: 'system_prompt' } }),
      'ann@example.test edited the system prompt of agent #7'],
    [event('agent.run_state', { target_type: 'agent', target_id: '7', detail: { from: 'stop', to: 'run_all' } }),
      'ann@example.test switched agent #7 from stop to fast'],
    [event('agent.email_prefix', { target_type: 'agent', target_id: '7', detail: { from: null, to: 'sales' } }),
      'ann@example.test set the e-mail prefix of agent #7 to sales'],
    [event('mail.draft', { actor_type: 'agent', actor_id: 7, target_type: 'message', target_id: '3', detail: { to: 'x@y.z' } }),
      'Agent #7 drafted mail #3 to x@y.z'],
    [event('mail.send', { actor_type: 'system', target_type: 'message', target_id: '3', detail: { to: 'x@y.z' } }), 'Mail #3 to x@y.z was sent'],
    [event('billing.spend_limit', { target_type: 'user', target_id: '2', detail: { from_cents: 0, to_cents: 2500 } }),
      'ann@example.test changed their monthly spend limit from no limit to $25.00'],
    [event('billing.spend_limit', { ...asAdmin, actor_id: 1, actor_label: 'admin@example.test', impersonator_id: null, target_type: 'user',
      target_id: '2', detail: { from_cents: 2500, to_cents: 0 } }), 'admin@example.test changed the monthly spend limit of user #2 from $25.00 to no limit'],
    [event('desktop.take_control', { target_type: 'agent', target_id: '7' }), 'ann@example.test took control of the desktop of agent #7'],
    [event('recording.stop', { actor_type: 'system', target_type: 'recording', target_id: '4', detail: { agent_id: 7, auto: true } }),
      'Recording #4 of agent #7 stopped at its time limit'],
    // The agent's name as it is now, when the page brings it (deleted agents keep their id only).
    [event('agent.run_state', { target_type: 'agent', target_id: '7', detail: { from: 'stop', to: 'run_all' }, agent_name: 'Sales' }),
      'ann@example.test switched agent “Sales” (#7) from stop to fast'],
    [event('run.help_request', { actor_type: 'agent', actor_id: 7, actor_name: 'Sales', target_type: 'thread', target_id: '3', detail: { agent_id: 7 } }),
      'Agent “Sales” (#7) asked for help in thread #3'],
    [event('audit.prune', { actor_type: 'system', target_type: 'audit', target_id: '99', detail: { deleted: 1, retention_days: 400 } }),
      'The system pruned 1 audit event older than 400 days'],
    [event('impersonation.request', { ...asAdmin, detail: { method: 'POST', route: '/threads/:id/stop' } }),
      'admin@example.test as ann@example.test made a change: POST /threads/:id/stop'],
    [event('something.new', { target_type: 'thread', target_id: '5' }), 'ann@example.test did something.new on thread #5'],
  ];
  for (const [e, sentence] of cases) assert.is(auditSentence(e), sentence, e.action);
  // An e-mail address keeps its case; the sentences that start with a word are capitalised.
  assert.is(auditSentence(event('auth.sign_in', { actor_label: 'Ann@Example.test' })), 'Ann@Example.test signed in');
});

// --- the page

const page = suite('audit: page');
page.after.each(cleanup);

page('shows the verification, the events as sentences, their detail, and filters by action', async () => {
  const calls: Call[] = [];
  const api = new FakeApi(ADMIN)
    .on('GET /api/admin/audit/verify', () => ({ ok: true, checked: 1234, first_bad_id: null }))
    .on('GET /api/admin/audit', (call: Call) => {
      calls.push(call);
      const e = event('mail.approve', { ...asAdmin, target_type: 'message', target_id: '12', detail: { to: 'bob@example.test' } });
      return { events: [e], next_cursor: null };
    });
  await renderScreen(api, <AuditScreen />);
  await settle();
  assert.match(text(), 'Audit trail verified: 1,234 events, none changed or missing.');
  assert.match(text(), 'admin@example.test as ann@example.test approved mail #12 to bob@example.test');
  assert.match(document.querySelector('.audit-detail')!.textContent!, 'r-1', 'the detail is in the page, behind its summary');
  (document.querySelector('input[name=action]') as HTMLInputElement).value = 'mail.';
  await click(getRole('button', 'Apply'));
  await settle();
  assert.is(calls.at(-1)!.search, '?action=mail.');
});

page('says which event breaks the chain', async () => {
  const api = new FakeApi(ADMIN)
    .on('GET /api/admin/audit/verify', () => ({ ok: false, checked: 41, first_bad_id: 42 }))
    .on('GET /api/admin/audit', () => ({ events: [], next_cursor: null }));
  await renderScreen(api, <AuditScreen />);
  await settle();
  assert.match(getRole('alert').textContent!, 'event #42 was changed');
  assert.match(text(), 'No events found');
});

page('non-admins see Forbidden', async () => {
  await renderScreen(new FakeApi(USER).on('GET /api/admin/audit', () => json({ detail: 'x' }, 403)), <AuditScreen />);
  await settle();
  assert.match(text(), 'Forbidden: Admins only');
});

// --- the spend report on the Admin Dashboard

const spend = suite('admin: spend report');
spend.after.each(cleanup);

spend('lists spend per user with top agents, flags who is near or over the limit, and asks for another month', async () => {
  const calls: Call[] = [];
  const api = new FakeApi(ADMIN).on('GET /api/admin/agents', () => []).on('GET /api/admin/spend', (call: Call) => {
    calls.push(call);
    return {
      month: '2026-11',
      users: [
        { month: '2026-11', user_id: 2, email: 'ann@example.test', spend_cents: 900, limit_cents: 1000, status: 'near',
          top_agents: [{ agent_id: 7, name: 'Researcher', spend_cents: 600 }, { agent_id: 8, name: 'Writer', spend_cents: 300 }] },
        { month: '2026-11', user_id: 3, email: 'bob@example.test', spend_cents: 50, limit_cents: 0, status: 'no_limit', top_agents: [] },
      ],
    };
  });
  await renderScreen(api, <AdminDashboard />);
  await settle();
  const table = document.querySelector<HTMLElement>('table[aria-label="Spend by user in 2026-11"]')!;
  assert.match(table.textContent!, 'ann@example.test$9.00$10.00Near limitResearcher $6.00, Writer $3.00');
  assert.match(table.textContent!, 'bob@example.test$0.50—No limit');
  assert.match(text(), 'ann@example.test: $9.00 of $10.00 (near limit)');
  const select = document.querySelector('.spend-month select') as HTMLSelectElement;
  select.value = select.options[1].value;
  await act(async () => void select.dispatchEvent(new Event('change', { bubbles: true })));
  await settle();
  assert.is(calls.at(-1)!.search, `?month=${select.options[1].value}`);
});

words.run();
page.run();
spend.run();
