import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { configureHttp, DEFAULTS as HTTP_DEFAULTS } from '../../src/lib/http.ts';
import { clearResourceCache } from '../../src/lib/use-resource.ts';
import { messagesKey, useMessageSocket } from '../../src/lib/use-message-socket.ts';
import type { ChatMessage, MessageEvent, MessagePage } from '../../src/lib/types.ts';
import { applyMessageEvent, refreshesAgent } from '../../src/screens/agent/conversation/message-events.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { FakeSocket } from './helpers/fake-socket.ts';
import { waitFor } from './helpers/screen-harness.tsx';

// --- fakes

const message = (id: number, role: ChatMessage['role'] = 'user'): ChatMessage => ({
  id, agent_id: 7, thread_id: 1, role, user_data: { text: `m${id}` }, assistant_data: null, created_at: '2026-03-10T12:00:00Z',
});
const event = (type: MessageEvent['type'], m: ChatMessage): MessageEvent => ({ type, agent_id: 7, message_id: m.id, message: m });

let root: Root | null = null;
let page: MessagePage | undefined;
let refreshes = 0;
let logs: unknown[][] = [];
const urls: string[] = [];

function Probe({ agentId }: { agentId: number }) {
  page = useMessageSocket(agentId, {
    apply: applyMessageEvent,
    onEvent: (e) => refreshesAgent(e) && refreshes++,
    getToken: async () => 'tok',
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    timers: clock,
    log: (...args) => logs.push(args),
  }).data;
  return null;
}

// The socket's connect delay runs on a manual clock; the page load is waited for by condition.
let clock = new FakeClock();
const tick = (ms: number) => act(() => clock.tick(ms));
/** Past the 100 ms connect delay, with the socket created and page 1 loaded. */
async function connected(): Promise<void> {
  await tick(100);
  await waitFor(() => FakeSocket.instances.length > 0 && page !== undefined, 'the socket and page 1');
}
const last = () => FakeSocket.instances[FakeSocket.instances.length - 1];

const socket = suite('conversation: message socket');
socket.before.each(() => {
  reset();
  clearResourceCache();
  clock = new FakeClock();
  FakeSocket.instances = [];
  page = undefined;
  refreshes = 0;
  logs = [];
  urls.length = 0;
  configureHttp({
    ...HTTP_DEFAULTS,
    storage: null,
    fetch: async (input) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ messages: [message(2), message(1)], total_count: 2 }), { status: 200 });
    },
  });
});
socket.after.each(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  configureHttp(HTTP_DEFAULTS);
});

async function mount(agentId = 7) {
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(<Probe agentId={agentId} />));
}

socket('loads page 1 of 100 messages and connects after 100 ms with the token in the URL', async () => {
  await mount();
  assert.equal(urls, ['/api/messages/agent/7?page=1&page_size=100']);
  assert.is(messagesKey(7), '/messages/agent/7?page=1&page_size=100');
  await tick(99);
  assert.is(FakeSocket.instances.length, 0, 'not before 100 ms');
  await tick(1);
  await waitFor(() => FakeSocket.instances.length > 0, 'the socket');
  assert.is(FakeSocket.instances.length, 1);
  assert.match(last().url, /\/api\/messages\/agent\/7\/ws\?token=tok$/);
});

socket('applies created, updated and deleted to the cached page; an assistant message refreshes the agent', async () => {
  await mount();
  await connected();
  last().accept();
  await act(async () => last().push(event('created', message(3, 'assistant'))));
  assert.equal(page?.messages.map((m) => m.id), [3, 2, 1]);
  assert.is(page?.total_count, 3);
  assert.is(refreshes, 1);
  await act(async () => last().push(event('updated', { ...message(2), user_data: { text: 'edited' } })));
  assert.is(page?.messages[1].user_data?.text, 'edited');
  await act(async () => last().push(event('deleted', message(1))));
  assert.equal(page?.messages.map((m) => m.id), [3, 2]);
  assert.is(page?.total_count, 2);
  assert.is(refreshes, 1, 'only created assistant messages refresh');
});

socket('bad frames are logged only', async () => {
  await mount();
  await connected();
  await act(async () => last().push('{oops'));
  await act(async () => last().push({ type: 'weird' }));
  assert.is(logs.length, 2);
  assert.equal(page?.messages.map((m) => m.id), [2, 1]);
});

socket('closes with 1000 on unmount and does nothing for agent 0', async () => {
  await mount();
  await connected();
  await act(async () => root!.unmount());
  root = null;
  assert.is(last().closedWith, 1000);
  urls.length = 0;
  FakeSocket.instances = [];
  await mount(0);
  await tick(60_000);
  assert.is(clock.pending, 0);
  assert.equal(urls, []);
  assert.is(FakeSocket.instances.length, 0);
});

socket.run();
