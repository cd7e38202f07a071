import {
  ADMIN, byRole, cleanup, click, dialogs, FakeApi, getRole, json, renderScreen, settle, text, type, USER, waitFor, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AdminAgent, AdminThread, AdminThreadDetail, CommMessage, ThreadNeedingApproval } from '../../src/lib/admin-api.ts';
import AdminDashboard from '../../src/screens/admin/admin-dashboard.tsx';
import AdminAgentScreen from '../../src/screens/admin/admin-agent-screen.tsx';
import AdminThreadScreen from '../../src/screens/admin/admin-thread-screen.tsx';
import OpsDashboard from '../../src/screens/admin/ops-dashboard.tsx';
import { relativeTime } from '../../src/screens/admin/relative-time.ts';

// --- relative time labels

const labels = suite('admin: relative time labels');
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

labels("says 'now' under a minute, also for a time slightly in the future", () => {
  assert.is(relativeTime(ago(0), NOW), 'now');
  assert.is(relativeTime(ago(59_999), NOW), 'now');
  assert.is(relativeTime(ago(-30_000), NOW), 'now');
});

labels('counts whole minutes, hours and days', () => {
  assert.is(relativeTime(ago(MIN), NOW), '1m ago');
  assert.is(relativeTime(ago(5 * MIN + 59_000), NOW), '5m ago');
  assert.is(relativeTime(ago(59 * MIN), NOW), '59m ago');
  assert.is(relativeTime(ago(HOUR), NOW), '1h ago');
  assert.is(relativeTime(ago(23 * HOUR + 59 * MIN), NOW), '23h ago');
  assert.is(relativeTime(ago(DAY), NOW), '1d ago');
  assert.is(relativeTime(ago(3 * DAY + 5 * HOUR), NOW), '3d ago');
  assert.is(relativeTime(ago(29 * DAY), NOW), '29d ago');
});

labels('counts months of 30 days and years of 365 days', () => {
  assert.is(relativeTime(ago(30 * DAY), NOW), '1mo ago');
  assert.is(relativeTime(ago(75 * DAY), NOW), '2mo ago');
  assert.is(relativeTime(ago(359 * DAY), NOW), '11mo ago');
  assert.is(relativeTime(ago(360 * DAY), NOW), '1y ago', 'twelve months read as a year, never "0y"');
  assert.is(relativeTime(ago(365 * DAY), NOW), '1y ago');
  assert.is(relativeTime(ago(3 * 365 * DAY + DAY), NOW), '3y ago');
});

labels('takes dates, numbers and strings; a bad value is "-"', () => {
  assert.is(relativeTime(new Date(NOW - 2 * HOUR), new Date(NOW)), '2h ago');
  assert.is(relativeTime(NOW - 2 * HOUR, NOW), '2h ago');
  assert.is(relativeTime('not a date', NOW), '-');
});

labels.run();

// --- shared fixtures

const recent = (ms: number) => new Date(Date.now() - ms).toISOString();
const agent = (id: number, extra: Partial<AdminAgent> = {}): AdminAgent => ({
  id, name: `Agent ${id}`, owner_id: 5, owner_email: 'owner@example.test', target_run_state: 'stop', agent_running: false,
  number_scheduled_threads: 0, number_threads_requiring_approval: 0, updated_at: recent(0), ...extra,
});
const thread = (id: number, extra: Partial<AdminThread> = {}): AdminThread => ({
  id, agent_id: 7, name: `Thread ${id}`, description: '', thread_running: false, error_message: '', schedule_sequence: null,
  approval_required: false, target_run_state: null, target_sequence: null, created_at: recent(DAY), updated_at: recent(0), ...extra,
});
/** A table or list by its aria-label (the harness's byRole knows only explicit roles for these). */
function labelled(tag: string, label: string): HTMLElement {
  const found = document.querySelectorAll<HTMLElement>(`${tag}[aria-label="${label}"]`);
  if (found.length !== 1) throw new Error(`expected one ${tag} labelled ${label}, found ${found.length}`);
  return found[0];
}
const rows = (label: string) => [...labelled('table', label).querySelectorAll('tbody tr')] as HTMLElement[];
const cells = (row: HTMLElement) => [...row.querySelectorAll('td')].map((td) => td.textContent);
const headers = (label: string) => [...labelled('table', label).querySelectorAll('th')].map((th) => th.textContent);
const title = () => document.querySelector('h1')!.textContent;
const alerts = () => byRole('alert').map((el) => el.textContent);

// --- Admin Dashboard

const dashboard = suite('admin: the Admin Dashboard');
dashboard.after.each(cleanup);

dashboard('lists the agents in the order served, with state, counts and last activity', async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/agents', () => [
    agent(3, { target_run_state: 'run_all', number_scheduled_threads: 2, number_threads_requiring_approval: 1, updated_at: recent(5 * MIN + 10_000) }),
    agent(1, { target_run_state: 'run', agent_running: true, updated_at: recent(3 * DAY) }),
    agent(2, { updated_at: recent(400 * DAY) }),
  ]);
  await renderScreen(api, <AdminDashboard />);
  assert.is(title(), 'Admin Dashboard');
  assert.equal(headers('Agents'), ['Name', 'State', '# Scheduled', '# Needs Approval', 'Last Activity']);
  assert.equal(rows('Agents').map(cells), [
    ['Agent 3', 'On', '2', '1', '5m ago'],
    ['Agent 1', 'On', '0', '0', '3d ago'],
    ['Agent 2', 'Off', '0', '0', '1y ago'],
  ]);
  await click(rows('Agents')[1].querySelectorAll('td')[3]);
  assert.is(location.pathname, '/admin/agents/1');
});

dashboard("shows 'Failed to load admin agents' with the server's detail", async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/agents', () => json({ detail: 'database is down' }, 500))
    .on('GET /api/admin/spend', () => ({ month: '2026-11', users: [] }));
  await renderScreen(api, <AdminDashboard />);
  assert.equal(alerts(), ['Failed to load admin agentsdatabase is down']);
  assert.is(document.querySelector('table'), null);
});

dashboard('says so when there are no agents', async () => {
  await renderScreen(new FakeApi(ADMIN).on('GET /api/admin/agents', () => []), <AdminDashboard />);
  assert.ok(text().includes('No agents found'));
});

dashboard("a user sees 'Forbidden: Admins only.' and nothing is fetched", async () => {
  const api = new FakeApi(USER).on('GET /api/admin/agents', () => [agent(1)]);
  await renderScreen(api, <AdminDashboard />);
  assert.ok(text().includes('Forbidden: Admins only.'));
  assert.equal(api.apiCalls(), []);
});

dashboard.run();

// --- Admin agent page

const agentPage = suite('admin: the Admin agent page');
agentPage.after.each(cleanup);

agentPage('names the agent and lists its threads: Untitled, Running/Idle, sequence, approval, updated', async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/threads', (call: Call) => {
    assert.is(call.search, '?agent_id=7');
    return {
      agent: agent(7, { name: 'Mailer' }),
      threads: [
        thread(11, { name: '', thread_running: true, updated_at: recent(2 * HOUR) }),
        thread(12, { name: 'Answer Alice', approval_required: true, updated_at: recent(3 * DAY) }),
        thread(13, { name: 'Sort invoices', schedule_sequence: 2, updated_at: recent(40 * DAY) }),
      ],
    };
  });
  history.replaceState(null, '', '/admin/agents/7');
  await renderScreen(api, <AdminAgentScreen id={7} />);
  assert.is(title(), 'Mailer');
  assert.equal(headers('Threads'), ['Name', 'Running/Idle', 'Scheduled', 'Approval', 'Updated']);
  assert.equal(rows('Threads').map(cells), [
    ['Untitled', 'Running', '', '', '2h ago'],
    ['Answer Alice', 'Idle', '', 'Needs approval', '3d ago'],
    ['Sort invoices', 'Idle', '2', '', '1mo ago'],
  ]);
  await click(rows('Threads')[1]);
  assert.is(location.pathname, '/admin/threads/12');
  await click(getRole('button', 'Back'));
  assert.is(location.pathname, '/admin');
});

agentPage('says which instance runs the agent\'s desktop when several servers share the database', async () => {
  const mailer = { ...agent(7, { name: 'Mailer' }), desktop_instance: 'host-b:42:ab' };
  const api = new FakeApi(ADMIN).on('GET /api/admin/threads', () => ({ agent: mailer, threads: [] }));
  await renderScreen(api, <AdminAgentScreen id={7} />);
  await waitFor(() => text().includes('Desktop on instance host-b:42:ab'));
});

agentPage("shows 'Failed to load threads', and 'No threads found.' for an agent without any", async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/threads', () => json({ detail: 'Agent not found' }, 404));
  await renderScreen(api, <AdminAgentScreen id={99} />);
  assert.equal(alerts(), ['Failed to load threadsAgent not found']);
  await cleanup();
  await renderScreen(new FakeApi(ADMIN).on('GET /api/admin/threads', () => ({ agent: agent(7), threads: [] })), <AdminAgentScreen id={7} />);
  assert.ok(text().includes('No threads found.'));
});

agentPage("a user sees 'Forbidden: Admins only.'", async () => {
  const api = new FakeApi(USER);
  await renderScreen(api, <AdminAgentScreen id={7} />);
  assert.ok(text().includes('Forbidden: Admins only.'));
  assert.equal(api.apiCalls(), []);
});

agentPage.run();

// --- Admin thread page

const comm = (id: number, extra: Partial<CommMessage> = {}): CommMessage => ({
  id, role: 'outbound', outbound_state: 'requires_approval', text: 'Dear Alice,\nthe figures are attached.', files: [],
  created_at: '2026-06-15T10:00:00Z', from_address: 'mailer@example.test', to_address: 'alice@example.test', subject: 'Re: Numbers',
  attempts: 0, last_error: null, sent_at: null, ...extra,
});
const detail = (extra: Partial<AdminThreadDetail> = {}): AdminThreadDetail => ({
  ...thread(12, { name: 'Answer Alice', approval_required: true }), agent_name: 'Mailer', owner_email: 'owner@example.test',
  steps: [
    {
      thread_id: 12, sequence: 1, user_text: 'Send Alice the numbers', user_files: ['agent-7/u1/numbers.csv'],
      reasoning_text: '', assistant_text: '', tool_calls: [],
    },
    {
      thread_id: 12, sequence: 2, user_text: '', user_files: [],
      reasoning_text: '', assistant_text: 'Drafted a reply.', tool_calls: [{ name: 'email', status: 'done' }],
    },
  ],
  total_steps: 2, ...extra,
});

/** A server for thread 12: its detail, its messages, and the approval actions on them. */
function threadApi(messages: CommMessage[]) {
  const state = { messages, fail: null as null | string };
  const api = new FakeApi(ADMIN)
    .on('GET /api/admin/threads/12', () => detail({ approval_required: state.messages.some((m) => m.outbound_state === 'requires_approval') }))
    .on('GET /api/admin/comm-messages', () => state.messages);
  for (const m of messages) {
    const path = `/api/admin/comm-messages/${m.id}`;
    const refuse = (action: string) => state.fail === action && json({ detail: `Only a message that requires approval can be ${action}` }, 409);
    const update = (patch: Partial<CommMessage>) => {
      state.messages = state.messages.map((x) => (x.id === m.id ? { ...x, ...patch } : x));
      return state.messages.find((x) => x.id === m.id);
    };
    api.on(`POST ${path}/update-text`, (call) => refuse('edited') || update({ text: (call.body as { text: string }).text }));
    api.on(`POST ${path}/queue`, () => refuse('queued') || update({ outbound_state: 'queued' }));
    api.on(`DELETE ${path}`, () => refuse('deleted') || ((state.messages = state.messages.filter((x) => x.id !== m.id)), json(null, 204)));
  }
  return { api, state };
}
const item = (id: number) => document.querySelector(`[aria-label$="message ${id}"]`) as HTMLElement;
const within = (el: HTMLElement, name: string) => [...el.querySelectorAll('button')].find((b) => b.textContent === name)!;

const threadPage = suite('admin: the Admin thread page');
threadPage.after.each(cleanup);

threadPage('shows the communication with role, state, addresses, text and files, and the history', async () => {
  const { api } = threadApi([
    comm(1, {
      role: 'inbound', outbound_state: null, from_address: 'alice@example.test', to_address: 'mailer@example.test',
      subject: 'Numbers', text: 'Send me the numbers', files: ['q3.pdf'],
    }),
    comm(2),
    comm(3, { outbound_state: 'success', sent_at: '2026-06-15T10:05:00Z', attempts: 1 }),
    comm(4, { outbound_state: 'dead', attempts: 6, last_error: '550 Mailbox unavailable' }),
  ]);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  assert.is(title(), 'Answer Alice');
  const inbound = item(1);
  assert.ok(inbound.textContent!.startsWith('Inbound'));
  assert.ok(inbound.textContent!.includes('alice@example.test → mailer@example.test'));
  assert.ok(inbound.textContent!.includes('Send me the numbers'));
  assert.ok(inbound.textContent!.includes('q3.pdf'));
  assert.equal([...inbound.querySelectorAll('button')], [], 'inbound mail has no actions');
  assert.ok(item(2).textContent!.includes('Requires approval'));
  assert.equal([...item(2).querySelectorAll('button')].map((b) => b.textContent), ['Edit', 'Queue', 'Delete']);
  assert.ok(item(3).textContent!.includes('Success'));
  assert.ok(item(3).textContent!.includes('Sent '));
  assert.equal([...item(3).querySelectorAll('button')], []);
  assert.ok(item(4).textContent!.includes('Dead'));
  assert.ok(item(4).textContent!.includes('Gave up after 6 attempts: 550 Mailbox unavailable'));

  const history = labelled('ol', 'History');
  assert.is(history.querySelectorAll('.step').length, 2);
  assert.ok(history.textContent!.includes('Send Alice the numbers'));
  assert.ok(history.textContent!.includes('numbers.csv'));
  assert.ok(history.textContent!.includes('Drafted a reply.'));
  assert.ok(text().includes('Needs approval'));
  assert.ok(text().includes('Mailer'));
});

threadPage('edits, then queues a draft; the thread no longer needs approval', async () => {
  const { api } = threadApi([comm(2)]);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  await click(within(item(2), 'Edit'));
  const box = item(2).querySelector('textarea')!;
  assert.is(box.value, 'Dear Alice,\nthe figures are attached.');
  await type(box, '   ');
  assert.ok(within(item(2), 'Save').disabled, 'no empty text');
  await type(box, 'Dear Alice, here they are.');
  await click(within(item(2), 'Save'));
  await settle();
  assert.equal(api.calls.find((c) => c.path.endsWith('/update-text'))!.body, { text: 'Dear Alice, here they are.' });
  assert.ok(item(2).textContent!.includes('Dear Alice, here they are.'));
  assert.is(item(2).querySelector('textarea'), null);

  await click(within(item(2), 'Queue'));
  await settle();
  assert.ok(api.calls.some((c) => c.method === 'POST' && c.path === '/api/admin/comm-messages/2/queue'));
  assert.ok(item(2).textContent!.includes('Queued'));
  assert.equal([...item(2).querySelectorAll('button')], []);
  assert.not.ok(text().includes('Needs approval'));
});

threadPage('deletes a draft after asking', async () => {
  const { api } = threadApi([comm(2)]);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  dialogs.answer = false;
  await click(within(item(2), 'Delete'));
  assert.equal(dialogs.confirms, ['Delete this message?']);
  assert.not.ok(api.calls.some((c) => c.method === 'DELETE'));
  dialogs.answer = true;
  await click(within(item(2), 'Delete'));
  await settle();
  assert.ok(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api/admin/comm-messages/2'));
  assert.is(item(2), null);
  assert.ok(text().includes('No messages.'));
});

threadPage("shows 'Failed to save message', 'Failed to queue message' and 'Failed to delete message'", async () => {
  const { api, state } = threadApi([comm(2)]);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  state.fail = 'edited';
  await click(within(item(2), 'Edit'));
  await type(item(2).querySelector('textarea')!, 'new words');
  await click(within(item(2), 'Save'));
  await settle();
  assert.equal(alerts(), ['Failed to save messageOnly a message that requires approval can be edited']);
  assert.ok(item(2).querySelector('textarea'), 'the edit stays open');
  await click(within(item(2), 'Cancel'));

  state.fail = 'queued';
  await click(within(item(2), 'Queue'));
  await settle();
  assert.equal(alerts(), ['Failed to queue messageOnly a message that requires approval can be queued']);

  state.fail = 'deleted';
  await click(within(item(2), 'Delete'));
  await settle();
  assert.equal(alerts(), ['Failed to delete messageOnly a message that requires approval can be deleted']);
});

threadPage("deletes the thread after asking and goes back to its agent; a failure says 'Failed to delete thread'", async () => {
  const { api } = threadApi([]);
  let fail = true;
  api.on('DELETE /api/admin/threads/12', () => (fail ? json({ detail: 'Thread not found' }, 404) : json(null, 204)));
  history.replaceState(null, '', '/admin/threads/12');
  await renderScreen(api, <AdminThreadScreen id={12} />);
  await click(getRole('button', 'Delete thread'));
  await settle();
  assert.equal(dialogs.confirms, ['Delete this thread?']);
  assert.equal(alerts(), ['Failed to delete threadThread not found']);
  assert.is(location.pathname, '/admin/threads/12');
  fail = false;
  await click(getRole('button', 'Delete thread'));
  await settle();
  assert.is(location.pathname, '/admin/agents/7');
});

threadPage("shows 'Failed to load messages' and 'Failed to load threads' when the lists fail", async () => {
  const api = new FakeApi(ADMIN)
    .on('GET /api/admin/threads/12', () => json({ detail: 'Thread not found' }, 404))
    .on('GET /api/admin/comm-messages', () => json({ detail: 'database is down' }, 500));
  await renderScreen(api, <AdminThreadScreen id={12} />);
  assert.equal(alerts().sort(), ['Failed to load messagesdatabase is down', 'Failed to load threadsThread not found']);
  assert.equal(byRole('button', 'Delete thread'), []);
});

threadPage("a user sees 'Forbidden: Admins only.'", async () => {
  const api = new FakeApi(USER);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  assert.ok(text().includes('Forbidden: Admins only.'));
  assert.equal(api.apiCalls(), []);
});

threadPage('an IDN recipient shows its Unicode form with a warning, mixed scripts apart; inbound mail says whether its sender was verified', async () => {
  const { api } = threadApi([
    comm(1, { role: 'inbound', outbound_state: null, from_address: 'ceo@bank.test', sender_verified: false, held_reason: 'unverified',
      sender_auth: 'DMARC fail for bank.test, policy reject; SPF fail for bank.test, no DKIM signature' }),
    comm(2, { to_address: 'boss@xn--exmple-4nf.com', to_idn: { unicode: 'boss@ex\u0430mple.com', mixed_scripts: ['Cyrillic', 'Latin'] } }),
    comm(3, { to_address: 'info@xn--bcher-kva.de', to_idn: { unicode: 'info@bücher.de', mixed_scripts: null } }),
    comm(4),
  ]);
  await renderScreen(api, <AdminThreadScreen id={12} />);
  assert.ok(item(1).textContent!.includes('Unverified sender: DMARC fail for bank.test, policy reject'));
  assert.ok(item(1).textContent!.includes('Held: it runs only when the owner runs the thread.'));
  const warning = item(2).querySelector('[role="note"]')!;
  assert.is(warning.getAttribute('aria-label'), 'International recipient address');
  assert.ok(warning.textContent!.includes('boss@xn--exmple-4nf.com is written boss@ex\u0430mple.com'));
  assert.is(warning.querySelector('.comm-idn-mixed')!.textContent, 'Its name mixes Cyrillic and Latin letters: it can look like another address.');
  assert.ok(item(3).querySelector('[role="note"]')!.textContent!.includes('info@bücher.de'));
  assert.is(item(3).querySelector('.comm-idn-mixed'), null);
  assert.is(item(4).querySelector('[role="note"]'), null);
});

threadPage.run();

// --- Ops Dashboard

const ops = suite('admin: the Ops Dashboard');
ops.after.each(cleanup);

const GB = 1024 ** 3;
const disk = (free: number, low = false) => ({ free_bytes: free, total_bytes: 50 * GB, reserve_bytes: GB, low });
const NO_FLEET = { instance_id: null, instances: [], placements: [] };
const opsApi = (me = ADMIN) => new FakeApi(me).on('GET /api/admin/storage', () => disk(41.25 * GB)).on('GET /api/admin/desktops', () => NO_FLEET);

ops('lists the threads waiting for approval as served (oldest first): thread name else id, agent, age', async () => {
  const waiting: ThreadNeedingApproval[] = [
    { id: 41, thread_name: 'Answer Alice', agent_id: 7, agent_name: 'Mailer', updated_at: recent(2 * DAY) },
    { id: 42, thread_name: '', agent_id: 8, agent_name: 'Helper', updated_at: recent(10 * MIN) },
  ];
  await renderScreen(opsApi().on('GET /api/admin/threads-requiring-approval', () => waiting), <OpsDashboard />);
  assert.is(title(), 'Ops Dashboard');
  assert.equal(headers('Threads requiring approval'), ['Thread', 'Agent', 'Age']);
  assert.equal(rows('Threads requiring approval').map(cells), [['Answer Alice', 'Mailer', '2d ago'], ['42', 'Helper', '10m ago']]);
  await click(rows('Threads requiring approval')[1]);
  assert.is(location.pathname, '/admin/threads/42');
});

ops("says 'No threads found.' when none waits", async () => {
  await renderScreen(opsApi().on('GET /api/admin/threads-requiring-approval', () => []), <OpsDashboard />);
  assert.ok(text().includes('No threads found.'));
});

ops('shows the data directory\'s free space, its size and the reserve, without a warning while above it', async () => {
  await renderScreen(opsApi().on('GET /api/admin/threads-requiring-approval', () => []), <OpsDashboard />);
  await waitFor(() => text().includes('41.3 GB free of 50.0 GB'));
  assert.ok(text().includes('1.0 GB kept for the database'));
  assert.is(document.querySelector('[role="meter"]')?.getAttribute('aria-valuenow'), '18');
  assert.equal(alerts(), []);
});

ops('below the reserve it says in words that uploads and mail attachments are refused', async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/threads-requiring-approval', () => []).on('GET /api/admin/storage', () => disk(300 * 1024 ** 2, true))
    .on('GET /api/admin/desktops', () => NO_FLEET);
  await renderScreen(api, <OpsDashboard />);
  await waitFor(() => text().includes('300.0 MB free of 50.0 GB'));
  assert.equal(alerts(), ['Free space is below the reserve: new uploads and mail attachments are refused until space is freed.']);
});

ops('a failed disk space load shows its detail and leaves the threads alone', async () => {
  const api = new FakeApi(ADMIN).on('GET /api/admin/threads-requiring-approval', () => []).on('GET /api/admin/desktops', () => NO_FLEET)
    .on('GET /api/admin/storage', () => json({ detail: 'The database cannot write right now: the server is out of disk space' }, 503));
  await renderScreen(api, <OpsDashboard />);
  await waitFor(() => alerts().length > 0);
  assert.equal(alerts(), ['Failed to load disk spaceThe database cannot write right now: the server is out of disk space']);
  assert.ok(text().includes('No threads found.'));
});

ops('shows which instance runs each agent\'s desktop, the live instances and their tier', async () => {
  const fleet = {
    instance_id: 'host-a:101:aa',
    instances: [
      { id: 'host-a:101:aa', address: 'http://10.0.0.1:8080', desktop_host: true, desktops: 1, heartbeat_at: recent(1000) },
      { id: 'host-w:7:cc', address: 'http://10.0.0.9:8080', desktop_host: false, desktops: 0, heartbeat_at: recent(1000) },
    ],
    placements: [
      { agent_id: 7, agent_name: 'Sales', instance_id: 'host-a:101:aa', stale: false, sleeping: true },
      { agent_id: 9, agent_name: null, instance_id: 'host-b:5:bb', stale: true, sleeping: false },
    ],
  };
  await renderScreen(opsApi().on('GET /api/admin/threads-requiring-approval', () => []).on('GET /api/admin/desktops', () => fleet), <OpsDashboard />);
  await waitFor(() => rows('Desktop placements').length === 2);
  assert.equal(headers('Desktop placements'), ['Agent', 'Instance']);
  // Agents by name; one deleted meanwhile by its id. A desktop frozen while idle says it sleeps.
  assert.equal(rows('Desktop placements').map(cells), [['SalesSleeping', 'host-a:101:aa'], ['Agent 9', 'host-b:5:bb stale']]);
  assert.ok(text().includes('host-a:101:aa (this one) · http://10.0.0.1:8080 · 1 desktop'));
  assert.ok(text().includes('host-w:7:cc · http://10.0.0.9:8080 · web tier'));
});

ops('shows the detail of a failed load', async () => {
  const api = opsApi().on('GET /api/admin/threads-requiring-approval', () => json({ detail: 'database is down' }, 500));
  await renderScreen(api, <OpsDashboard />);
  assert.equal(alerts(), ['database is down']);
});

ops("loads nothing for a user, who sees 'Forbidden: Admins only.'", async () => {
  const api = opsApi(USER).on('GET /api/admin/threads-requiring-approval', () => []);
  await renderScreen(api, <OpsDashboard />);
  assert.ok(text().includes('Forbidden: Admins only.'));
  assert.equal(api.apiCalls(), []);
});

ops.run();
