import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { configureHttp, DEFAULTS as HTTP_DEFAULTS } from '../../src/lib/http.ts';
import { clearResourceCache } from '../../src/lib/use-resource.ts';
import type { Agent, Step, Thread } from '../../src/lib/types.ts';
import { ConversationPanel } from '../../src/screens/agent/conversation/conversation-panel.tsx';

// --- a fake API and a WebSocket that never connects (the hub client is tested on its own)

type Call = { method: string; path: string; search: string; body: unknown };
type Handler = (call: Call) => unknown;

const json = (body: unknown, status = 200) =>
  new Response(body === null ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

class FakeApi {
  calls: Call[] = [];
  private routes = new Map<string, Handler>();
  constructor() {
    this.on('POST /api/realtime/negotiate', (c) => ({ url: 'ws://hub/x', group: `thread:${(c.body as { thread_id: number }).thread_id}` }));
    this.on('GET /api/messages/agent/7', () => ({ messages: [], total_count: 0 }));
  }
  on(route: string, handler: Handler): this {
    this.routes.set(route, handler);
    return this;
  }
  find(method: string, path: string) {
    return this.calls.filter((c) => c.method === method && c.path === path);
  }
  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), 'http://localhost/');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    const call = { method, path: url.pathname, search: url.search, body };
    this.calls.push(call);
    const handler = this.routes.get(`${method} ${url.pathname}`);
    if (!handler) return json({ detail: 'Not Found' }, 404);
    const result = await handler(call);
    return result instanceof Response ? result : json(result);
  };
}

class QuietSocket {
  readyState = 0;
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  constructor(public url: string) {}
  send() {}
  close() {
    this.readyState = 3;
  }
}

const thread = (fields: Partial<Thread> = {}): Thread => ({
  id: 1, agent_id: 7, name: 'First thread', description: '', thread_running: false, error_message: '', schedule_sequence: null,
  approval_required: false, target_run_state: null, target_sequence: null, updated_at: new Date().toISOString(), ...fields,
});

const step = (sequence: number, fields: Partial<Step> = {}): Step => ({
  thread_id: 1, sequence, reasoning_text: '', assistant_text: '', user_text: '', user_files: [], tool_calls: [], ...fields,
});

const agent = (threads: Thread[], fields: Partial<Agent> = {}): Agent => ({
  id: 7, owner_id: 2, name: 'Alice', screenshot_url: null, file_path: null, agent_running: false, target_run_state: 'stop',
  cua_client_connected: false, running_state: 'idle', number_scheduled_threads: 0, number_threads_requiring_approval: 0,
  email_prefix: null, email_accept_from_addresses: null, updated_at: new Date().toISOString(),
  system_prompt: '', notes: '', instructions: '', threads, ...fields,
});

// --- rendering

let root: Root | null = null;
let api: FakeApi;
let changes = 0;
const realWebSocket = globalThis.WebSocket;
const realWarn = console.warn;
const realConfirm = window.confirm;
const realAlert = window.alert;
let warnings: unknown[][] = [];

async function render(a: Agent, disabled = false) {
  if (!root) {
    const el = document.createElement('div');
    el.style.height = '600px';
    document.body.append(el);
    root = createRoot(el);
  }
  await act(async () => root!.render(<ConversationPanel agent={a} onAgentChange={() => changes++} disabled={disabled} />));
  await flush();
}

const flush = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));
const text = () => document.body.textContent ?? '';
const $ = <T extends Element = HTMLElement>(selector: string) => document.querySelector<T>(selector);
const button = (label: string) => {
  const found = [...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === label || b.textContent === label);
  if (!found) throw new Error(`no button ${label}`);
  return found as HTMLButtonElement;
};
const click = (el: Element) => act(async () => (el as HTMLElement).click());

async function type(value: string) {
  const box = $<HTMLTextAreaElement>('textarea')!;
  await act(async () => {
    // React tracks the value through the native setter; setting it directly would be ignored.
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(box, value);
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function pressEnter(shiftKey = false) {
  const box = $<HTMLTextAreaElement>('textarea')!;
  await act(async () => box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey, bubbles: true, cancelable: true })));
  await flush();
}

function setupSuite(name: string) {
  const s = suite(name);
  s.before.each(() => {
    reset();
    clearResourceCache();
    api = new FakeApi();
    changes = 0;
    warnings = [];
    configureHttp({ ...HTTP_DEFAULTS, fetch: api.fetch, storage: null, debug: () => {} });
    (globalThis as { WebSocket: unknown }).WebSocket = QuietSocket;
    console.warn = (...args: unknown[]) => void warnings.push(args);
  });
  s.after.each(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    configureHttp(HTTP_DEFAULTS);
    (globalThis as { WebSocket: unknown }).WebSocket = realWebSocket;
    console.warn = realWarn;
    window.confirm = realConfirm;
    window.alert = realAlert;
    clearResourceCache();
  });
  return s;
}

// ---

const states = setupSuite('conversation panel: states');

states('without threads: New chat, Select a thread and the input', async () => {
  await render(agent([]));
  assert.is($('[data-testid="current-thread-name"]')?.textContent, 'New chat');
  assert.match(text(), 'Select a thread');
  assert.is($<HTMLTextAreaElement>('textarea')!.placeholder, 'Write anything...');
  assert.ok(button('Send').disabled, 'nothing to send yet');
});

states('disabled: the input says so and cannot be used', async () => {
  await render(agent([]), true);
  const box = $<HTMLTextAreaElement>('textarea')!;
  assert.is(box.placeholder, 'Input disabled for now');
  assert.ok(box.disabled);
  assert.ok(button('Attach files').disabled);
});

states('selects the running thread, shows Loading messages... then its steps', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  api.on('GET /api/threads/2/steps', async () => {
    await gate;
    return { steps: [step(1, { user_text: 'Do the thing' }), step(2, { assistant_text: '**Done**' })], total_count: 2 };
  });
  await render(agent([thread({ id: 1 }), thread({ id: 2, name: 'Busy one', thread_running: true })]));
  assert.is($('[data-testid="current-thread-name"]')?.textContent, 'Busy one');
  assert.match(text(), 'Loading messages...');
  assert.equal(api.find('GET', '/api/threads/2/steps').map((c) => c.search), ['?limit=500&offset=0']);
  await act(async () => release());
  await flush();
  assert.not.match(text(), 'Loading messages...');
  assert.match(text(), 'Do the thing');
  assert.is($('.message-assistant strong')?.textContent, 'Done', 'assistant text is Markdown');
  // Running: the stop button replaces the input.
  assert.is($('textarea'), null);
  await click(button('Stop'));
  await flush();
  assert.equal(api.calls.filter((c) => c.method === 'POST').map((c) => c.path).sort(), ['/api/agents/stop', '/api/realtime/negotiate', '/api/threads/2/stop']);
  assert.ok(changes > 0);
});

states('No messages, and the thread error in a red box', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  await render(agent([thread({ id: 1 })]));
  assert.match(text(), 'No messages');
  api.on('GET /api/threads/3/steps', () => ({ steps: [step(1, { user_text: 'hi' })], total_count: 1 }));
  await render(agent([thread({ id: 3, error_message: 'The VM crashed' })]));
  assert.is($('.thread-error')?.textContent, 'The VM crashed');
  assert.ok($('textarea'), 'a failed thread keeps the input');
});

states('tool calls: pending hidden, Completed N action(s), the latest group open', async () => {
  api.on('GET /api/threads/1/steps', () => ({
    steps: [
      step(1, { tool_calls: [{ name: 'click', status: 'done' }] }),
      step(2, { tool_calls: [{ name: 'type', status: 'done' }, { name: 'scroll', status: 'failed' }, { name: 'wait', status: 'pending' }] }),
    ],
    total_count: 2,
  }));
  await render(agent([thread({ id: 1 })]));
  const toggles = [...document.querySelectorAll('.tool-group-toggle')];
  assert.equal(toggles.map((t) => t.textContent), ['Completed 1 action(s)', 'Completed 2 action(s)']);
  assert.equal(toggles.map((t) => t.getAttribute('aria-expanded')), ['false', 'true']);
  assert.equal([...document.querySelectorAll('.tool-call-name')].map((n) => n.textContent), ['type', 'scroll']);
  await click(toggles[0]);
  assert.equal([...document.querySelectorAll('.tool-call-name')].map((n) => n.textContent), ['click', 'type', 'scroll']);
});

states('while the thread runs the latest group reads Completing N actions', async () => {
  const calls = [{ name: 'a', status: 'done' }, { name: 'b', status: 'running' }];
  api.on('GET /api/threads/1/steps', () => ({ steps: [step(1, { tool_calls: calls })], total_count: 1 }));
  await render(agent([thread({ id: 1, thread_running: true })]));
  assert.is($('.tool-group-toggle')?.textContent, 'Completing 2 actions');
});

states('Thinking shows for the next thread of a running agent after the user spoke', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [step(1, { user_text: 'hello' })], total_count: 1 }));
  await render(agent([thread({ id: 1, schedule_sequence: 1 })], { agent_running: true }));
  assert.is($('.thinking')?.textContent, 'Thinking');
  await render(agent([thread({ id: 1, schedule_sequence: 1 })], { agent_running: false }));
  assert.is($('.thinking'), null);
});

states.run();

// ---

const writing = setupSuite('conversation panel: drafts and sending');

writing('a draft is named New thread; its first message creates the thread and loads 100 steps', async () => {
  const created = thread({ id: 9, name: 'Plan the trip', schedule_sequence: 1 });
  api.on('POST /api/threads/7/create-new-thread', () => json(created, 201));
  api.on('GET /api/threads/9/steps', () => ({ steps: [step(1, { thread_id: 9, user_text: 'Plan the trip' })], total_count: 1 }));
  await render(agent([]));
  await click(button('New thread'));
  assert.is($('[data-testid="current-thread-name"]')?.textContent, 'New thread');
  assert.match(text(), 'No messages');
  await type('  Plan the trip  ');
  await pressEnter();
  assert.equal(api.find('POST', '/api/threads/7/create-new-thread').map((c) => c.body), [{ user_text: 'Plan the trip', user_files: [] }]);
  assert.equal(api.find('GET', '/api/threads/9/steps').map((c) => c.search), ['?limit=100&offset=0']);
  assert.is($('[data-testid="current-thread-name"]')?.textContent, 'Plan the trip');
  assert.match(text(), 'Plan the trip');
  assert.is($<HTMLTextAreaElement>('textarea')!.value, '');
  assert.ok(changes > 0, 'the agent is refreshed');
  // The polled agent then lists the thread: still one row, no draft left.
  await render(agent([created]));
  await click(button('Plan the trip: show all threads'));
  assert.equal([...document.querySelectorAll('.thread-row-name')].map((b) => b.textContent), ['Plan the trip']);
});

writing('Shift+Enter does not send; a blank message is not sent', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  await render(agent([thread({ id: 1 })]));
  await type('   ');
  await pressEnter();
  await type('line one');
  await pressEnter(true);
  assert.equal(api.find('POST', '/api/threads/1/set-user-input-and-schedule'), []);
});

writing('a message on an existing thread shows the returned step at once', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [step(1, { user_text: 'first' })], total_count: 1 }));
  api.on('POST /api/threads/1/set-user-input-and-schedule', () => step(2, { user_text: 'second' }));
  await render(agent([thread({ id: 1 })]));
  await type('second');
  await click(button('Send'));
  await flush();
  assert.equal(api.find('POST', '/api/threads/1/set-user-input-and-schedule').map((c) => c.body), [{ user_text: 'second', user_files: [] }]);
  assert.equal([...document.querySelectorAll('.message-user .message-text')].map((p) => p.textContent), ['first', 'second']);
});

writing('a failed send is logged only and keeps the text', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  api.on('POST /api/threads/1/set-user-input-and-schedule', () => json({ detail: 'nope' }, 500));
  await render(agent([thread({ id: 1 })]));
  await type('keep me');
  await pressEnter();
  assert.is($<HTMLTextAreaElement>('textarea')!.value, 'keep me');
  assert.ok(warnings.some((w) => String(w[0]).includes('Failed to send')));
});

writing.run();

// ---

const list = setupSuite('conversation panel: thread list');

list('No threads when the agent has none', async () => {
  await render(agent([]));
  await click(button('New chat: show all threads'));
  assert.match($('.thread-popover')!.textContent!, 'No threads');
});

list('sections: Scheduled by descending sequence, Running, Failed, then by age', async () => {
  api.on('GET /api/threads/4/steps', () => ({ steps: [], total_count: 0 }));
  const old = new Date(Date.now() - 10 * 24 * 3600 * 1000).toISOString();
  await render(agent([
    thread({ id: 1, name: 'one', schedule_sequence: 1 }),
    thread({ id: 2, name: 'two', schedule_sequence: 2 }),
    thread({ id: 3, name: 'failed', error_message: 'x' }),
    thread({ id: 4, name: 'running', thread_running: true }),
    thread({ id: 5, name: 'done today' }),
    thread({ id: 6, name: 'done earlier', updated_at: old }),
  ]));
  await click(button('running: show all threads'));
  const sections = [...document.querySelectorAll('.thread-section')].map((s) => [
    s.querySelector('h3')!.textContent,
    [...s.querySelectorAll('.thread-row-name')].map((b) => b.textContent).join(','),
  ]);
  assert.equal(sections, [
    ['Scheduled', 'two,one'],
    ['Running', 'running'],
    ['Failed', 'failed'],
    ['Today', 'done today'],
    ['1w ago', 'done earlier'],
  ]);
  assert.ok(button('Reorder two'), 'scheduled rows have a drag handle');
  assert.ok(button('Remove two from the schedule'));
});

list('delete asks first, and a failure alerts', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  let deletes = 0;
  api.on('DELETE /api/threads/1', () => (++deletes === 1 ? json({ detail: 'busy' }, 500) : new Response(null, { status: 204 })));
  const asked: string[] = [];
  const alerts: string[] = [];
  let answer = false;
  window.confirm = (q?: string) => (asked.push(q ?? ''), answer);
  window.alert = (m?: string) => void alerts.push(m ?? '');
  await render(agent([thread({ id: 1, name: 'Old work' })]));
  await click(button('Old work: show all threads'));
  await click(button('Delete Old work'));
  assert.equal(asked, ['Are you sure you want to delete thread "Old work"? This action cannot be undone.']);
  assert.is(deletes, 0, 'declined: nothing deleted');
  answer = true;
  await click(button('Delete Old work'));
  await flush();
  assert.equal(alerts, ['Failed to delete thread. Please try again.']);
  await click(button('Delete Old work'));
  await flush();
  assert.is(deletes, 2);
  assert.match(text(), 'No threads', 'gone before the agent refresh');
});

list('remove from schedule asks first; the arrow keys reorder with the drop rule', async () => {
  api.on('GET /api/threads/3/steps', () => ({ steps: [], total_count: 0 }));
  api.on('POST /api/threads/1/remove-from-schedule', () => thread({ id: 1 }));
  api.on('POST /api/threads/1/set-schedule-sequence', () => thread({ id: 1 }));
  api.on('POST /api/threads/3/set-schedule-sequence', () => thread({ id: 3 }));
  const asked: string[] = [];
  window.confirm = (q?: string) => (asked.push(q ?? ''), true);
  await render(agent([
    thread({ id: 3, name: 'c', schedule_sequence: 3 }),
    thread({ id: 2, name: 'b', schedule_sequence: 2 }),
    thread({ id: 1, name: 'a', schedule_sequence: 1 }),
  ]));
  await click(button('c: show all threads'));
  await click(button('Remove a from the schedule'));
  assert.equal(asked, ['Remove this thread from the schedule?']);
  assert.is(api.find('POST', '/api/threads/1/remove-from-schedule').length, 1);
  const key = (label: string, k: string) =>
    act(async () => button(label).dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true })));
  await key('Reorder a', 'ArrowUp'); // 1 onto 2, upward: 2 + 1
  await key('Reorder c', 'ArrowDown'); // 3 onto 2, downward: 2
  await flush();
  assert.equal(api.find('POST', '/api/threads/1/set-schedule-sequence').map((c) => c.search), ['?target_sequence=3']);
  assert.equal(api.find('POST', '/api/threads/3/set-schedule-sequence').map((c) => c.search), ['?target_sequence=2']);
});

list.run();

// ---

const files = setupSuite('conversation panel: attachments');

type Xhr = { url: string; body: FormData; upload: { onprogress: Handler2 }; onload: Handler2; onerror: Handler2; status: number; responseText: string };
type Handler2 = ((ev?: any) => void) | null;
const xhrs: Xhr[] = [];
class FakeXhr {
  url = '';
  body: FormData | null = null;
  status = 0;
  statusText = '';
  responseText = '';
  timeout = 0;
  upload: { onprogress: Handler2 } = { onprogress: null };
  onload: Handler2 = null;
  onerror: Handler2 = null;
  ontimeout: Handler2 = null;
  onabort: Handler2 = null;
  constructor() {
    xhrs.push(this as unknown as Xhr);
  }
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader() {}
  send(body: FormData) {
    this.body = body;
  }
  abort() {}
}
const realXhr = globalThis.XMLHttpRequest;
files.before.each(() => {
  xhrs.length = 0;
  (globalThis as { XMLHttpRequest: unknown }).XMLHttpRequest = FakeXhr;
});
files.after.each(() => {
  (globalThis as { XMLHttpRequest: unknown }).XMLHttpRequest = realXhr;
});

async function pick(list: File[]) {
  const input = $<HTMLInputElement>('input[type="file"]')!;
  Object.defineProperty(input, 'files', { configurable: true, value: list });
  await act(async () => input.dispatchEvent(new Event('change', { bubbles: true })));
  await flush();
}

const bigFile = (name: string) => {
  const f = new File(['x'], name);
  Object.defineProperty(f, 'size', { value: 100 * 1024 * 1024 + 1 });
  return f;
};

files('files go uploading (with progress) then done, and are sent with the message', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  api.on('POST /api/threads/1/set-user-input-and-schedule', (c) =>
    step(1, { user_text: 'Files uploaded', user_files: (c.body as { user_files: string[] }).user_files }));
  await render(agent([thread({ id: 1 })]));
  await pick([new File(['aaa'], 'a.txt'), new File(['bbbb'], 'b.txt')]);
  assert.equal(xhrs.map((x) => x.url), ['/api/agents/7/upload_file', '/api/agents/7/upload_file']);
  const status = () => [...document.querySelectorAll('.attachment')].map((li) => li.getAttribute('data-status'));
  assert.equal(status(), ['uploading', 'uploading']);
  assert.ok(button('Send').disabled, 'no send while uploading');
  await act(async () => xhrs[0].upload.onprogress!({ lengthComputable: true, loaded: 1, total: 2 }));
  assert.is($('[role="progressbar"]')?.getAttribute('aria-valuenow'), '50');
  for (const [i, x] of xhrs.entries()) {
    x.status = 200;
    x.responseText = JSON.stringify({ file_path: `uploads/7/${i}/${i ? 'b' : 'a'}.txt` });
    await act(async () => x.onload!());
  }
  await flush();
  assert.equal(status(), ['done', 'done']);
  assert.not.ok(button('Send').disabled, 'files alone can be sent');
  await click(button('Send'));
  await flush();
  assert.equal(api.find('POST', '/api/threads/1/set-user-input-and-schedule').map((c) => c.body),
    [{ user_text: 'Files uploaded', user_files: ['uploads/7/0/a.txt', 'uploads/7/1/b.txt'] }]);
  assert.is($('.attachment'), null, 'sent files leave the list');
  assert.equal([...document.querySelectorAll('.message-file')].map((li) => li.textContent), ['a.txt', 'b.txt']);
});

files('a failed upload goes back to pending (logged) and can be retried', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  await render(agent([thread({ id: 1 })]));
  await pick([new File(['aaa'], 'a.txt')]);
  await act(async () => xhrs[0].onerror!());
  await flush();
  assert.is($('.attachment')?.getAttribute('data-status'), 'pending');
  assert.ok(warnings.some((w) => String(w[0]).includes('Failed to upload a.txt')));
  await click(button('Retry upload of a.txt'));
  assert.is(xhrs.length, 2);
  assert.is($('.attachment')?.getAttribute('data-status'), 'uploading');
});

files('files over 100 MB are refused with a message; the others still upload', async () => {
  api.on('GET /api/threads/1/steps', () => ({ steps: [], total_count: 0 }));
  await render(agent([thread({ id: 1 })]));
  await pick([bigFile('huge.bin'), new File(['ok'], 'ok.txt')]);
  assert.is($('.chat-file-error')?.textContent, 'huge.bin exceeds the 100MB limit and cannot be uploaded.');
  assert.equal([...document.querySelectorAll('.attachment-name')].map((n) => n.textContent), ['ok.txt']);
  assert.is(xhrs.length, 1);
  await pick([bigFile('one.bin'), bigFile('two.bin')]);
  assert.is($('.chat-file-error')?.textContent, '2 files exceed the 100MB limit...');
});

files.run();
