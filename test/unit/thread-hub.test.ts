import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectThreadHub, PUBSUB_PROTOCOL } from '../../src/lib/thread-hub.ts';
import type { ThreadHubOptions } from '../../src/lib/thread-hub.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import type { Step } from '../../src/lib/types.ts';

// --- fakes

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

type Handler = ((ev: any) => void) | null;

/** A WebSocket the test plays the hub for; each test gets its own class so `instances` starts empty. */
function fakeWebSocket() {
  return class FakeSocket {
    static instances: FakeSocket[] = [];
    readyState = 0;
    sent: any[] = [];
    closedWith: number | undefined;
    onopen: Handler = null;
    onmessage: Handler = null;
    onclose: Handler = null;
    onerror: Handler = null;
    constructor(public url: string, public protocols?: string | string[]) {
      FakeSocket.instances.push(this);
    }
    send(data: string) {
      this.sent.push(JSON.parse(data));
    }
    close(code?: number) {
      this.closedWith = code;
      this.readyState = 3;
      this.onclose?.({ code: code ?? 1005, reason: '', wasClean: true });
    }
    // the hub's side
    accept() {
      this.readyState = 1;
      this.onopen?.({});
    }
    frame(value: unknown) {
      this.onmessage?.({ data: typeof value === 'string' ? value : JSON.stringify(value) });
    }
    connected() {
      this.frame({ type: 'system', event: 'connected', userId: '1', connectionId: 'c' });
    }
    drop(code = 1006) {
      this.readyState = 3;
      this.onclose?.({ code, reason: '', wasClean: false });
    }
  };
}

const step = (sequence: number, text = ''): Step => ({
  thread_id: 5, sequence, reasoning_text: '', assistant_text: text, user_text: '', user_files: [], tool_calls: [],
});

function setup(extra: Partial<ThreadHubOptions> = {}) {
  const clock = new FakeClock();
  const FakeSocket = fakeWebSocket();
  const negotiations: number[] = [];
  const steps: Step[] = [];
  const joins: boolean[] = [];
  const logs: unknown[][] = [];
  const hub = connectThreadHub(5, {
    negotiate: async (threadId) => {
      negotiations.push(threadId);
      return { url: `ws://hub/client/hubs/thread_hub?access_token=t${negotiations.length}`, group: `thread:${threadId}` };
    },
    onStep: (s) => steps.push(s),
    onJoin: ({ rejoined }) => joins.push(rejoined),
    log: (...args) => logs.push(args),
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    timers: clock,
    ...extra,
  });
  const sockets = FakeSocket.instances;
  const last = () => sockets[sockets.length - 1];
  return { clock, hub, sockets, last, negotiations, steps, joins, logs };
}

/** Opens the current socket, says connected and acks the join. */
async function join(ctx: ReturnType<typeof setup>) {
  await settle();
  ctx.last().accept();
  ctx.last().connected();
  const request = ctx.last().sent.at(-1);
  ctx.last().frame({ type: 'ack', ackId: request.ackId, success: true });
}

// ---

const hub = suite('thread hub client');

hub('negotiates, then opens the hub URL with the json.webpubsub.azure.v1 subprotocol', async () => {
  const ctx = setup();
  await settle();
  assert.equal(ctx.negotiations, [5]);
  assert.is(ctx.sockets.length, 1);
  assert.is(ctx.last().url, 'ws://hub/client/hubs/thread_hub?access_token=t1');
  assert.is(ctx.last().protocols, PUBSUB_PROTOCOL);
});

hub('joins the negotiated group only after the hub says connected, with an ackId', async () => {
  const ctx = setup();
  await settle();
  ctx.last().accept();
  assert.equal(ctx.last().sent, [], 'nothing before connected');
  ctx.last().connected();
  assert.equal(ctx.last().sent, [{ type: 'joinGroup', group: 'thread:5', ackId: 1 }]);
  assert.equal(ctx.joins, []);
  ctx.last().frame({ type: 'ack', ackId: 1, success: true });
  assert.equal(ctx.joins, [false]);
});

hub('delivers steps of its group, wrapped in a step envelope or bare', async () => {
  const ctx = setup();
  await join(ctx);
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:5', dataType: 'json', data: { type: 'step', data: step(1, 'a') } });
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:5', dataType: 'json', data: step(2, 'b') });
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:5', dataType: 'text', data: JSON.stringify(step(3, 'c')) });
  assert.equal(ctx.steps.map((s) => [s.sequence, s.assistant_text]), [[1, 'a'], [2, 'b'], [3, 'c']]);
});

hub('ignores other groups, other envelopes and unreadable frames; logs the bad ones', async () => {
  const ctx = setup();
  await join(ctx);
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:6', dataType: 'json', data: step(1) });
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:5', dataType: 'json', data: { type: 'trace', data: step(1) } });
  ctx.last().frame({ type: 'message', from: 'server', dataType: 'json', data: step(1) });
  ctx.last().frame('not json');
  assert.equal(ctx.steps, []);
  assert.is(ctx.logs.length, 1);
  assert.match(String(ctx.logs[0][0]), 'unreadable frame');
});

hub('a refused join is logged, not reported as joined', async () => {
  const ctx = setup();
  await settle();
  ctx.last().accept();
  ctx.last().connected();
  ctx.last().frame({ type: 'ack', ackId: 1, success: false, error: { name: 'Forbidden', message: 'no' } });
  assert.equal(ctx.joins, []);
  assert.match(String(ctx.logs[0][0]), 'joinGroup failed');
});

hub('negotiates again on every reconnect (tokens expire) and joins again with a new ackId', async () => {
  const ctx = setup();
  await join(ctx);
  ctx.last().drop(1006);
  await ctx.clock.tick(1000);
  assert.equal(ctx.negotiations, [5, 5]);
  assert.is(ctx.sockets.length, 2);
  assert.is(ctx.last().url, 'ws://hub/client/hubs/thread_hub?access_token=t2');
  await join(ctx);
  assert.equal(ctx.last().sent, [{ type: 'joinGroup', group: 'thread:5', ackId: 2 }]);
  assert.equal(ctx.joins, [false, true], 'the second join reports a rejoin, so missed steps can be loaded');
  ctx.last().frame({ type: 'message', from: 'group', group: 'thread:5', dataType: 'json', data: { type: 'step', data: step(4) } });
  assert.equal(ctx.steps.map((s) => s.sequence), [4]);
});

hub('a failed negotiation counts as a failed attempt and is retried', async () => {
  let calls = 0;
  const ctx = setup({
    negotiate: async () => {
      if (++calls === 1) throw new Error('503');
      return { url: 'ws://hub/x', group: 'thread:5' };
    },
  });
  await settle();
  assert.is(ctx.sockets.length, 0);
  await ctx.clock.tick(1000);
  assert.is(ctx.sockets.length, 1);
});

hub('close() closes cleanly with 1000 and never reconnects', async () => {
  const ctx = setup();
  await join(ctx);
  ctx.hub.close();
  assert.is(ctx.last().closedWith, 1000);
  await ctx.clock.tick(60_000);
  assert.is(ctx.sockets.length, 1);
  assert.equal(ctx.negotiations, [5]);
});

hub('close() during negotiation opens nothing', async () => {
  const ctx = setup();
  ctx.hub.close();
  await settle();
  await ctx.clock.tick(60_000);
  assert.is(ctx.sockets.length, 0);
});

hub.run();
