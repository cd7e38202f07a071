import {
  ADMIN, byRole, cleanup, click, deferred, dialogs, FakeApi, getRole, json, press, renderScreen, settle, text, type, USER,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentsScreen } from '../../src/screens/agents/agents-screen.tsx';
import type { AgentSummary } from '../../src/lib/types.ts';
import { findByLetter } from '../../src/ui/menu.tsx';

function agent(id: number, name: string, extra: Partial<AgentSummary> = {}): AgentSummary {
  return {
    id, owner_id: 1, name, screenshot_url: null, file_path: null, agent_running: false, target_run_state: 'stop',
    cua_client_connected: false, running_state: 'idle', number_scheduled_threads: 0, number_threads_requiring_approval: 0,
    email_prefix: null, email_accept_from_addresses: null, updated_at: '2025-01-01T00:00:00Z', ...extra,
  };
}

/** An API whose agent list is whatever `agents` holds when asked. */
function withAgents(me = ADMIN, agents: AgentSummary[] = [agent(1, 'Alice'), agent(2, 'Bob')]) {
  const api = new FakeApi(me).on('GET /api/agents/', () => agents);
  return { api, agents };
}

const dialog = () => document.querySelector<HTMLElement>('[role="dialog"]');
const nameInput = () => document.querySelector<HTMLInputElement>('[role="dialog"] input')!;
const createButton = () => getRole('button', /^(Create|Creating\.\.\.)$/);

async function openCreateModal() {
  await click(getRole('button', 'More options'));
  await click(getRole('menuitem', 'Create agent'));
}

// ---

const states = suite('Your Agents: states');
states.after.each(cleanup);

states('shows Loading agents... until the list arrives', async () => {
  const answer = deferred<Response>();
  const api = new FakeApi(USER).on('GET /api/agents/', () => answer.promise);
  await renderScreen(api, <AgentsScreen />);
  assert.match(text(), 'Loading agents...');
  answer.resolve(json([agent(1, 'Alice')]));
  await settle();
  assert.not.match(text(), 'Loading agents...');
  assert.match(text(), 'Alice');
});

states('shows No agents found for an empty list', async () => {
  const { api } = withAgents(USER, []);
  await renderScreen(api, <AgentsScreen />);
  assert.match(text(), 'No agents found');
});

states("shows 'Error loading agents' followed by the detail", async () => {
  const api = new FakeApi(USER).on('GET /api/agents/', () => json({ detail: 'Database unavailable' }, 503));
  await renderScreen(api, <AgentsScreen />);
  assert.is(getRole('alert').textContent, 'Error loading agents: Database unavailable');
});

states('renders one card per agent, each linking to its agent screen, with a placeholder image', async () => {
  const { api } = withAgents(USER);
  await renderScreen(api, <AgentsScreen />);
  const links = [...document.querySelectorAll<HTMLAnchorElement>('.agent-grid a')];
  assert.equal(links.map((a) => [a.textContent, a.getAttribute('href')]), [['Alice', '/agent/1'], ['Bob', '/agent/2']]);
  assert.is(document.querySelectorAll('.agent-card-placeholder').length, 2);
  // Spec §9: the list view loads each agent's messages, 50 a page.
  assert.equal(api.apiCalls().map((c) => `${c.method} ${c.path}${c.search}`), [
    'GET /api/agents/',
    'GET /api/messages/agent/1?page=1&page_size=50',
    'GET /api/messages/agent/2?page=1&page_size=50',
  ]);
});

states('a card whose desktop sleeps says Sleeping; an awake one does not', async () => {
  const { api } = withAgents(USER, [agent(1, 'Alice', { desktop_sleeping: true }), agent(2, 'Bob', { desktop_sleeping: false })]);
  await renderScreen(api, <AgentsScreen />);
  const cards = [...document.querySelectorAll('.agent-card')];
  assert.equal(cards.map((c) => c.textContent), ['AliceSleeping', 'Bob']);
});

states("a card shows the first line of its agent's latest message; none without messages", async () => {
  const message = (id: number, text: string, role = 'assistant') => ({
    id, agent_id: 1, thread_id: 1, role, created_at: '2025-01-01T00:00:00Z',
    user_data: role === 'user' ? { text } : null, assistant_data: role === 'user' ? null : { text },
  });
  const { api } = withAgents(USER);
  api.on('GET /api/messages/agent/1', () => ({
    messages: [message(9, '\n  Booked the flight for Tuesday.\nDetails follow.'), message(8, 'Book a flight', 'user')], total_count: 2,
  }));
  api.on('GET /api/messages/agent/2', () => ({ messages: [], total_count: 0 }));
  await renderScreen(api, <AgentsScreen />);
  const latest = [...document.querySelectorAll('.agent-card')].map((c) => c.querySelector('.agent-card-latest')?.textContent ?? null);
  assert.equal(latest, ['Booked the flight for Tuesday.', null]);
});

states('clicking a card opens /agent/{id}', async () => {
  const { api } = withAgents(USER);
  await renderScreen(api, <AgentsScreen />);
  await click(document.querySelector('a[href="/agent/2"]')!);
  assert.is(location.pathname, '/agent/2');
});

states('a plain user gets neither the more-options menu nor delete buttons', async () => {
  const { api } = withAgents(USER);
  await renderScreen(api, <AgentsScreen />);
  assert.is(byRole('button', 'More options').length, 0);
  assert.is(byRole('button', /^Delete /).length, 0);
});

states('an admin acting as a user keeps the admin tools', async () => {
  const { api } = withAgents({ ...USER, impersonated_by: { ...ADMIN, role: 'admin' } });
  await renderScreen(api, <AgentsScreen />);
  assert.is(byRole('button', 'More options').length, 1);
  assert.is(byRole('button', /^Delete /).length, 2);
});

states.run();

// ---

const create = suite('Your Agents: Create Agent');
create.after.each(cleanup);

create('the menu opens a modal titled Create Agent with a Name field', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  assert.is(dialog()!.querySelector('h2')!.textContent, 'Create Agent');
  assert.is(nameInput().placeholder, 'e.g. Alice');
  assert.is(nameInput().closest('label')!.textContent, 'Name');
  assert.is(getRole('button', 'Cancel').textContent, 'Cancel');
});

create('Create is disabled while the trimmed name is empty', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  assert.ok((createButton() as HTMLButtonElement).disabled, 'empty');
  await type(nameInput(), '   ');
  assert.ok((createButton() as HTMLButtonElement).disabled, 'whitespace only');
  await type(nameInput(), ' Carol ');
  assert.not.ok((createButton() as HTMLButtonElement).disabled);
});

create('sends the trimmed name, shows Creating... while in flight, then closes and refetches the list', async () => {
  const { api, agents } = withAgents();
  const answer = deferred<Response>();
  api.on('POST /api/agents/', () => answer.promise);
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  await type(nameInput(), '  Carol  ');
  await click(createButton());
  assert.is(createButton().textContent, 'Creating...');
  assert.ok((createButton() as HTMLButtonElement).disabled, 'disabled while in flight');
  const posts = api.calls.filter((c) => c.method === 'POST' && c.path === '/api/agents/');
  assert.equal(posts.map((c) => c.body), [{ name: 'Carol' }]);

  agents.push(agent(3, 'Carol'));
  answer.resolve(json(agent(3, 'Carol'), 201));
  await settle();
  assert.is(dialog(), null);
  assert.match(text(), 'Carol');
  assert.is(api.calls.filter((c) => c.method === 'GET' && c.path === '/api/agents/').length, 2);
});

create('a failure alerts the server detail and keeps the modal open', async () => {
  const { api } = withAgents();
  api.on('POST /api/agents/', () => json({ detail: 'Name must be at most 100 characters' }, 422));
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  await type(nameInput(), 'Dave');
  await click(createButton());
  await settle();
  assert.equal(dialogs.alerts, ['Name must be at most 100 characters']);
  assert.ok(dialog());
  assert.is(createButton().textContent, 'Create');
  assert.not.ok((createButton() as HTMLButtonElement).disabled);
});

create("a failure without a detail alerts 'Failed to create agent', not the status line", async () => {
  const { api } = withAgents();
  api.on('POST /api/agents/', () => new Response('Internal Server Error', { status: 500 }));
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  await type(nameInput(), 'Dave');
  await click(createButton());
  await settle();
  assert.equal(dialogs.alerts, ['Failed to create agent']);
});

create('Cancel closes the modal without a request', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  await openCreateModal();
  await click(getRole('button', 'Cancel'));
  assert.is(dialog(), null);
  assert.is(api.calls.filter((c) => c.method === 'POST' && c.path === '/api/agents/').length, 0);
});

create.run();

// ---

const remove = suite('Your Agents: delete');
remove.after.each(cleanup);

remove("asks 'Delete this agent?', deletes on OK and refetches the list", async () => {
  const { api, agents } = withAgents();
  api.on('DELETE /api/agents/1', () => {
    agents.shift();
    return json(null, 204);
  });
  await renderScreen(api, <AgentsScreen />);
  await click(getRole('button', 'Delete Alice'));
  await settle();
  assert.equal(dialogs.confirms, ['Delete this agent?']);
  assert.not.match(text(), 'Alice');
  assert.match(text(), 'Bob');
});

remove('does nothing when the question is cancelled', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  dialogs.answer = false;
  await click(getRole('button', 'Delete Alice'));
  await settle();
  assert.is(api.calls.filter((c) => c.method === 'DELETE').length, 0);
  assert.match(text(), 'Alice');
});

remove('a failure alerts the server detail', async () => {
  const { api } = withAgents();
  api.on('DELETE /api/agents/1', () => json({ detail: 'Agent not found' }, 404));
  await renderScreen(api, <AgentsScreen />);
  await click(getRole('button', 'Delete Alice'));
  await settle();
  assert.equal(dialogs.alerts, ['Agent not found']);
});

remove("a failure without a detail alerts 'Failed to delete'", async () => {
  const { api } = withAgents();
  api.on('DELETE /api/agents/1', () => new Response('', { status: 502 }));
  await renderScreen(api, <AgentsScreen />);
  await click(getRole('button', 'Delete Alice'));
  await settle();
  assert.equal(dialogs.alerts, ['Failed to delete']);
});

remove.run();

// ---

const menu = suite('more-options menu');
menu.after.each(cleanup);

menu('is a menu button that opens a menu and focuses the first item', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  const button = getRole('button', 'More options');
  assert.is(button.getAttribute('aria-haspopup'), 'menu');
  assert.is(button.getAttribute('aria-expanded'), 'false');
  await click(button);
  assert.is(button.getAttribute('aria-expanded'), 'true');
  assert.is(getRole('menu').getAttribute('aria-labelledby'), button.id);
  assert.is(document.activeElement, getRole('menuitem', 'Create agent'));
});

menu('Escape closes it and puts focus back on the button', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  const button = getRole('button', 'More options');
  await click(button);
  await press(getRole('menuitem', 'Create agent'), 'Escape');
  assert.is(byRole('menu').length, 0);
  assert.is(document.activeElement, button);
});

menu('a press outside closes it', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  await click(getRole('button', 'More options'));
  const { act } = await import('react');
  await act(async () => {
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
  });
  assert.is(byRole('menu').length, 0);
});

menu('ArrowDown on the button opens it; Enter on an item selects it', async () => {
  const { api } = withAgents();
  await renderScreen(api, <AgentsScreen />);
  await press(getRole('button', 'More options'), 'ArrowDown');
  const item = getRole('menuitem', 'Create agent');
  assert.is(document.activeElement, item);
  await click(item); // a native button turns Enter into a click
  assert.is(dialog()!.querySelector('h2')!.textContent, 'Create Agent');
});

menu('first-letter jumps find the next matching item and wrap around', () => {
  const items = [{ label: 'Developer options' }, { label: 'Show traces' }, { label: 'Schedules' }, { label: 'Email settings' }];
  assert.is(findByLetter(items, 0, 's'), 1);
  assert.is(findByLetter(items, 1, 'S'), 2);
  assert.is(findByLetter(items, 2, 's'), 1);
  assert.is(findByLetter(items, 3, 'd'), 0);
  assert.is(findByLetter(items, 0, 'x'), -1);
});

menu.run();
