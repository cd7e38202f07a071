import {
  ADMIN, byRole, cleanup, click, deferred, FakeApi, getRole, json, renderScreen, settle, text, USER, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentScreen } from '../../src/screens/agent/agent-screen.tsx';
import type { Agent } from '../../src/lib/types.ts';

function agent(extra: Partial<Agent> = {}): Agent {
  return {
    id: 7, owner_id: 1, name: 'Alice', screenshot_url: null, file_path: null, agent_running: false, target_run_state: 'stop',
    cua_client_connected: false, running_state: 'idle', number_scheduled_threads: 0, number_threads_requiring_approval: 0,
    email_prefix: null, email_accept_from_addresses: null, updated_at: '2025-01-01T00:00:00Z',
    system_prompt: '', notes: '', instructions: '', threads: [], ...extra,
  };
}

function agentApi(me = ADMIN, record = agent()) {
  const api = new FakeApi(me).on('GET /api/agents/7', () => record);
  // The conversation panel's own requests get quiet, empty answers.
  api.on('GET /api/messages/agent/7', () => ({ messages: [], total_count: 0 }));
  return api;
}

const heading = () => document.querySelector('.title-bar h1')?.textContent;
const fast = () => getRole('button', /Fast$/) as HTMLButtonElement;

const screen = suite('Agent screen');
screen.after.each(cleanup);

screen("says 'Agent not found' for a 404", async () => {
  const api = new FakeApi(USER).on('GET /api/agents/7', () => json({ detail: 'Agent not found' }, 404));
  await renderScreen(api, <AgentScreen id={7} />);
  assert.is(getRole('alert').textContent, 'Agent not found');
});

screen("says 'Error loading agent' with the detail for other failures", async () => {
  const api = new FakeApi(USER).on('GET /api/agents/7', () => json({ detail: 'Database unavailable' }, 503));
  await renderScreen(api, <AgentScreen id={7} />);
  assert.is(getRole('alert').textContent, 'Error loading agent: Database unavailable');
});

screen('shows the agent name in the title bar, the chat panel and the VM view', async () => {
  await renderScreen(agentApi(USER), <AgentScreen id={7} />);
  assert.is(heading(), 'Alice');
  assert.ok(getRole('complementary', 'Chat'));
  assert.match(getRole('region', 'Virtual machine').textContent!, 'No screenshot yet');
});

screen('the VM view shows a ring and says so while the agent runs', async () => {
  await renderScreen(agentApi(USER, agent({ agent_running: true })), <AgentScreen id={7} />);
  assert.ok(document.querySelector('.vm-frame[data-running]'));
  assert.is(getRole('status').textContent, 'Agent is running');
});

screen('the Fast toggle shows what the server returns, and is disabled while it is asked', async () => {
  const api = agentApi(USER);
  const answers: ReturnType<typeof deferred<Response>>[] = [];
  api.on('POST /api/agents/7/run-state', () => {
    answers.push(deferred<Response>());
    return answers.at(-1)!.promise;
  });
  await renderScreen(api, <AgentScreen id={7} />);
  assert.is(fast().getAttribute('aria-pressed'), 'false');

  await click(fast());
  assert.ok(fast().disabled, 'disabled in flight');
  assert.is(fast().getAttribute('aria-pressed'), 'false', 'no optimistic flip');
  answers[0].resolve(json({ state: 'run_all' }));
  await settle();
  assert.is(fast().getAttribute('aria-pressed'), 'true');
  assert.not.ok(fast().disabled);

  await click(fast());
  // The server has the last word: here it keeps the agent in fast playback.
  answers[1].resolve(json({ state: 'run_all' }));
  await settle();
  assert.is(fast().getAttribute('aria-pressed'), 'true');
  const bodies = api.calls.filter((c: Call) => c.path === '/api/agents/7/run-state').map((c) => c.body);
  assert.equal(bodies, [{ state: 'run_all' }, { state: 'stop' }]);
});

screen('a user gets no more-options menu', async () => {
  await renderScreen(agentApi(USER), <AgentScreen id={7} />);
  assert.is(byRole('button', 'More options').length, 0);
});

screen('the admin menu offers Developer options, Show traces, Schedules and Email settings, all enabled', async () => {
  const api = agentApi(ADMIN);
  for (const path of ['system-prompt', 'notes', 'instructions']) api.on(`GET /api/agents/7/${path}`, () => new Promise(() => {}));
  api.on('GET /api/scheduler/7', () => new Promise(() => {}));
  await renderScreen(api, <AgentScreen id={7} />);
  await click(getRole('button', 'More options'));
  assert.equal(byRole('menuitem').map((i) => i.textContent), ['Developer options', 'Show traces', 'Schedules', 'Email settings']);
  for (const name of ['Developer options', 'Show traces', 'Schedules', 'Email settings']) {
    assert.is(getRole('menuitem', name).getAttribute('aria-disabled'), null);
  }
  await click(getRole('menuitem', 'Schedules'));
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Schedules');
  assert.match(text(), 'Loading schedules...');
  await click(getRole('button', 'Close'));
  assert.is(byRole('dialog').length, 0);
  await click(getRole('button', 'More options'));
  await click(getRole('menuitem', 'Developer options'));
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Developer options');
  assert.match(text(), 'Loading data...');
});

screen("'Show traces' opens the traces panel beside the desktop, and its close button hides it", async () => {
  const api = agentApi(ADMIN);
  api.on('GET /api/models/status', () => ({ provider: 'offline', model: 'offline-planner', offline: true }));
  await renderScreen(api, <AgentScreen id={7} />);
  assert.is(byRole('complementary', 'LLM traces').length, 0, 'hidden until asked for');
  await click(getRole('button', 'More options'));
  await click(getRole('menuitem', 'Show traces'));
  const panel = getRole('complementary', 'LLM traces');
  // No thread yet: the agent has none, and a draft has no traces.
  assert.match(panel.textContent!, 'Select a thread to view traces.');
  assert.is(panel.previousElementSibling, getRole('region', 'Virtual machine'), 'on the right of the VM view');
  await click(getRole('button', 'Hide traces'));
  assert.is(byRole('complementary', 'LLM traces').length, 0);
});

screen("the wide chat setting is kept in localStorage 'chatWide'", async () => {
  await renderScreen(agentApi(USER), <AgentScreen id={7} />);
  const toggle = getRole('button', 'Wide chat');
  assert.is(toggle.getAttribute('aria-pressed'), 'false');
  await click(toggle);
  assert.is(toggle.getAttribute('aria-pressed'), 'true');
  assert.ok(document.querySelector('.chat-panel[data-wide]'));
  assert.is(localStorage.getItem('chatWide'), 'true');
});

screen('the wide chat setting is read back on the next visit', async () => {
  localStorage.setItem('chatWide', 'true');
  await renderScreen(agentApi(USER), <AgentScreen id={7} />);
  assert.is(getRole('button', 'Wide chat').getAttribute('aria-pressed'), 'true');
});

screen('a help e-mail\'s link (issue 46): ?control=1 opens in control mode, stops the agent, remembers it for a reload, drops the query', async () => {
  history.replaceState(null, '', '/agent/7?control=1');
  const length = history.length;
  try {
    const api = agentApi(USER, agent({ target_run_state: 'run' }));
    api.on('POST /api/agents/stop', () => ({ result: 'stopping', message: '' }));
    await renderScreen(api, <AgentScreen id={7} />);
    assert.ok(document.querySelector('.agent-screen[data-control]'), 'in control mode');
    assert.equal(api.calls.filter((c) => c.path === '/api/agents/stop').map((c) => c.body), [{ agent_id: 7, force_terminate: false }]);
    assert.is(sessionStorage.getItem('control_mode_7'), 'true');
    assert.is(location.pathname + location.search, '/agent/7');
    assert.is(history.length, length, 'the query is replaced, not a new history entry');
  } finally {
    history.replaceState(null, '', '/');
    sessionStorage.removeItem('control_mode_7');
  }
});

screen('a webhook\'s thread link (?thread=<id>) selects that thread, and the address is tidied up', async () => {
  history.replaceState(null, '', '/agent/7?thread=12');
  try {
    const base = { agent_id: 7, description: '', thread_running: false, error_message: '', schedule_sequence: null, approval_required: false,
      target_run_state: null, target_sequence: null, updated_at: '2025-01-01T00:00:00Z' } as const;
    const api = agentApi(USER, agent({ threads: [{ ...base, id: 11, name: 'Newest' }, { ...base, id: 12, name: 'Linked' }] }));
    api.on('GET /api/threads/12/steps', () => ({ steps: [], total_count: 0 }));
    api.on('GET /api/threads/11/steps', () => ({ steps: [], total_count: 0 }));
    await renderScreen(api, <AgentScreen id={7} />);
    await settle();
    assert.is(document.querySelector('[data-testid="current-thread-name"]')?.textContent, 'Linked');
    assert.is(location.pathname + location.search, '/agent/7');
  } finally {
    history.replaceState(null, '', '/');
  }
});

screen('without ?control=1 the screen opens as usual, not in control', async () => {
  const api = agentApi(USER);
  await renderScreen(api, <AgentScreen id={7} />);
  assert.not.ok(document.querySelector('.agent-screen[data-control]'));
  assert.not.ok(api.calls.some((c) => c.path === '/api/agents/stop'));
});

screen('on a phone (issue 47) a switch shows the chat or the desktop; in control mode the desktop, and Expand chat the chat', async () => {
  await renderScreen(agentApi(USER), <AgentScreen id={7} />);
  const pane = () => document.querySelector('.agent-screen')!.getAttribute('data-pane');
  const option = (name: string) => getRole('button', name);
  assert.ok(getRole('group', 'Show'));
  assert.is(pane(), 'chat');
  assert.is(option('Chat').getAttribute('aria-pressed'), 'true');
  await click(option('Desktop'));
  assert.is(pane(), 'desktop');
  assert.is(option('Desktop').getAttribute('aria-pressed'), 'true');
  assert.is(option('Chat').getAttribute('aria-pressed'), 'false');
  await click(option('Chat'));
  assert.is(pane(), 'chat');
  await cleanup();
  sessionStorage.setItem('control_mode_7', 'true'); // a reload in control mode
  try {
    await renderScreen(agentApi(USER), <AgentScreen id={7} />);
    assert.is(pane(), 'desktop');
    await click(getRole('button', 'Expand chat'));
    assert.is(pane(), 'chat');
    assert.not.ok(document.querySelector('.agent-screen[data-control]'));
  } finally {
    sessionStorage.removeItem('control_mode_7');
  }
});

screen.run();
