import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReconnectingSocket, exponentialBackoff, fixedDelay } from '../../src/lib/socket.ts';
import type { SocketOptions } from '../../src/lib/socket.ts';
import { FakeClock } from './helpers/fake-clock.ts';

// --- fakes

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

type Handler = ((ev: any) => void) | null;

/** A WebSocket stand-in; each test gets its own class so `instances` starts empty. */
function fakeWebSocket() {
  class FakeSocket {
    static instances: FakeSocket[] = [];
    readyState = 0;
    sent: string[] = [];
    closedWith: [number | undefined, string | undefined] | null = null;
    onopen: Handler = null;
    onmessage: Handler = null;
    onclose: Handler = null;
    onerror: Handler = null;
    constructor(public url: string, public protocols?: string | string[]) {
      FakeSocket.instances.push(this);
    }
    send(data: string) {
      if (this.readyState !== 1) throw new Error('InvalidStateError: not open');
      this.sent.push(data);
    }
    close(code?: number, reason?: string) {
      this.closedWith = [code, reason];
      this.readyState = 2;
    }
    // server side
    accept() {
      this.readyState = 1;
      this.onopen?.({});
    }
    receive(data: string) {
      this.onmessage?.({ data });
    }
    drop(code = 1006, reason = '') {
      this.readyState = 3;
      this.onerror?.({});
      this.onclose?.({ code, reason, wasClean: code === 1000 });
    }
  }
  return FakeSocket;
}

function setup(options: SocketOptions = {}, url: ConstructorParameters<typeof ReconnectingSocket>[0] = 'ws://test/ws') {
  const clock = new FakeClock();
  const FakeSocket = fakeWebSocket();
  const socket = new ReconnectingSocket(url, { WebSocket: FakeSocket as unknown as typeof WebSocket, timers: clock, ...options });
  const events: string[] = [];
  for (const type of ['open', 'close', 'error', 'message', 'giveup']) socket.addEventListener(type, () => events.push(type));
  const sockets = FakeSocket.instances;
  const last = () => sockets[sockets.length - 1];
  return { clock, socket, sockets, last, events };
}

// ---

const backoff = suite('socket: retry delays');

backoff('exponentialBackoff doubles from 1 s and caps at 30 s', () => {
  assert.equal([1, 2, 3, 4, 5].map(exponentialBackoff), [1000, 2000, 4000, 8000, 16000]);
  assert.is(exponentialBackoff(6), 30_000);
  assert.is(exponentialBackoff(40), 30_000);
});

backoff('fixedDelay gives the same delay for every attempt', () => {
  assert.equal([1, 2, 5].map(fixedDelay(2000)), [2000, 2000, 2000]);
});

backoff.run();

// ---

const connect = suite('socket: connecting');

connect('waits the connect delay before the first connect', async () => {
  const { clock, socket, sockets } = setup({ connectDelay: 100, protocols: ['pubsub'] });
  await clock.tick(99);
  assert.is(sockets.length, 0);
  assert.is(socket.readyState, ReconnectingSocket.CONNECTING);
  await clock.tick(1);
  assert.is(sockets.length, 1);
  assert.is(sockets[0].url, 'ws://test/ws');
  assert.equal(sockets[0].protocols, ['pubsub']);
});

connect('connects at once without a delay and reports OPEN once open', async () => {
  const { socket, sockets, events } = setup();
  assert.is(sockets.length, 1);
  sockets[0].accept();
  assert.is(socket.readyState, ReconnectingSocket.OPEN);
  assert.equal(events, ['open']);
});

connect('calls a URL provider on every connect, so each one gets a fresh token', async () => {
  let n = 0;
  const { clock, sockets } = setup({}, async () => `ws://test/ws?token=t${++n}`);
  await clock.tick(0);
  sockets[0].drop();
  await clock.tick(1000);
  assert.equal(sockets.map((s) => s.url), ['ws://test/ws?token=t1', 'ws://test/ws?token=t2']);
});

connect('counts a failing URL provider as a failed attempt', async () => {
  let n = 0;
  const { clock, socket, sockets, events } = setup({}, async () => {
    if (++n === 1) throw new Error('token unavailable');
    return 'ws://test/ws';
  });
  await clock.tick(0);
  assert.is(sockets.length, 0);
  assert.equal(events, ['error']);
  assert.is(socket.retryCount, 1);
  await clock.tick(1000);
  assert.is(sockets.length, 1);
});

connect('forwards open, message and close to the on* handlers and to listeners', async () => {
  const { socket, last, events } = setup();
  const seen: string[] = [];
  socket.onopen = () => seen.push('onopen');
  socket.onmessage = (ev) => seen.push(`onmessage:${ev.data}`);
  socket.onclose = (ev) => seen.push(`onclose:${ev.code}:${ev.reason}`);
  last().accept();
  last().receive('{"type":"created"}');
  last().drop(1000, 'bye');
  assert.equal(seen, ['onopen', 'onmessage:{"type":"created"}', 'onclose:1000:bye']);
  assert.equal(events, ['open', 'message', 'error', 'close']);
});

connect('a handshake that hangs past connectionTimeout counts as a failed attempt and is retried', async () => {
  const { clock, socket, sockets, events } = setup({ connectionTimeout: 4000 });
  await clock.tick(3999);
  assert.is(socket.readyState, ReconnectingSocket.CONNECTING);
  assert.equal(events, []);
  await clock.tick(1);
  assert.equal(sockets[0].closedWith, [undefined, undefined], 'the hung socket is closed');
  assert.equal(events, ['error']);
  assert.is(socket.retryCount, 1);
  await clock.tick(1000);
  assert.is(sockets.length, 2);
  // the dropped socket's late events reach nobody
  sockets[0].accept();
  assert.equal(events, ['error']);
  sockets[1].accept();
  await clock.tick(60_000);
  assert.is(socket.readyState, ReconnectingSocket.OPEN, 'no timeout once open');
  assert.equal(events, ['error', 'open']);
});

connect('hung handshakes end in giveup after maxRetries, and the event map types it', async () => {
  const { clock, socket, sockets } = setup({ connectionTimeout: 100, maxRetries: 2, retryDelay: () => 10 });
  const seen: string[] = [];
  socket.addEventListener('giveup', (ev) => seen.push(ev.type));
  socket.addEventListener('error', (ev) => seen.push(String((ev.error as Error).message)));
  await clock.tick(1000);
  assert.is(sockets.length, 3);
  assert.equal(seen, ['Connection timed out after 100 ms', 'Connection timed out after 100 ms', 'Connection timed out after 100 ms', 'giveup']);
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
  assert.is(clock.pending, 0);
});

connect.run();

// ---

const reconnect = suite('socket: reconnecting (spec §4)');

reconnect('reconnects after 1 s, 2 s, 4 s, 8 s and 16 s, then gives up after 5 attempts', async () => {
  const { clock, socket, sockets, last, events } = setup();
  for (const [attempt, delay] of [1000, 2000, 4000, 8000, 16000].entries()) {
    last().drop();
    await clock.tick(delay - 1);
    assert.is(sockets.length, attempt + 1, `attempt ${attempt + 1} not before ${delay} ms`);
    await clock.tick(1);
    assert.is(sockets.length, attempt + 2, `attempt ${attempt + 1} after ${delay} ms`);
    assert.is(socket.retryCount, attempt + 1);
  }
  last().drop();
  assert.is(events.filter((e) => e === 'giveup').length, 1);
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
  assert.is(clock.pending, 0);
  await clock.tick(120_000);
  assert.is(sockets.length, 6);
});

reconnect('waits at most 30 s between attempts', async () => {
  const { clock, sockets, last } = setup({ maxRetries: 7 });
  for (const delay of [1000, 2000, 4000, 8000, 16000]) {
    last().drop();
    await clock.tick(delay);
  }
  last().drop();
  await clock.tick(29_999);
  assert.is(sockets.length, 6);
  await clock.tick(1);
  assert.is(sockets.length, 7);
});

reconnect('does not reconnect after a close with code 1000', async () => {
  const { clock, socket, sockets, last } = setup();
  last().accept();
  last().drop(1000);
  await clock.tick(60_000);
  assert.is(sockets.length, 1);
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
});

reconnect('resets the attempt counter when a connection opens', async () => {
  const { clock, socket, sockets, last } = setup();
  last().drop();
  await clock.tick(1000);
  last().drop();
  await clock.tick(2000);
  assert.is(socket.retryCount, 2);
  last().accept();
  assert.is(socket.retryCount, 0);
  last().drop();
  await clock.tick(1000);
  assert.is(sockets.length, 4, 'the next attempt waits 1 s again');
});

reconnect('uses the given retry delay and retry limit', async () => {
  const { clock, sockets, last, events } = setup({ retryDelay: fixedDelay(2000), maxRetries: 2 });
  last().drop();
  await clock.tick(2000);
  last().drop();
  await clock.tick(2000);
  assert.is(sockets.length, 3);
  last().drop();
  assert.ok(events.includes('giveup'));
});

reconnect.run();

// ---

const sending = suite('socket: send queue');

sending('queues messages until open and flushes them in order', async () => {
  const { clock, socket, last } = setup({ connectDelay: 100 });
  socket.send('a');
  await clock.tick(100);
  socket.send('b');
  assert.equal(last().sent, []);
  last().accept();
  assert.equal(last().sent, ['a', 'b']);
  socket.send('c');
  assert.equal(last().sent, ['a', 'b', 'c']);
});

sending('keeps messages sent while reconnecting for the next connection', async () => {
  const { clock, socket, sockets, last } = setup();
  last().accept();
  last().drop();
  socket.send('while away');
  await clock.tick(1000);
  last().accept();
  assert.equal(sockets[0].sent, []);
  assert.equal(sockets[1].sent, ['while away']);
});

sending.run();

// ---

const closing = suite('socket: close()');

closing('during the connect delay, no connection is ever made', async () => {
  const { clock, socket, sockets } = setup({ connectDelay: 100 });
  socket.close();
  await clock.tick(1000);
  assert.is(sockets.length, 0);
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
});

closing('during a backoff wait, no reconnect follows', async () => {
  const { clock, socket, sockets, last } = setup();
  last().drop();
  socket.close();
  await clock.tick(60_000);
  assert.is(sockets.length, 1);
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
});

closing('while a URL provider is pending, its URL is not used', async () => {
  let release!: (url: string) => void;
  const { clock, socket, sockets } = setup({}, () => new Promise<string>((resolve) => (release = resolve)));
  socket.close();
  release('ws://late');
  await clock.tick(0);
  assert.is(sockets.length, 0);
});

closing('on an open socket, closes it with 1000 and never reconnects, whatever code the close reports', async () => {
  const { clock, socket, sockets, last, events } = setup();
  last().accept();
  socket.close();
  assert.equal(last().closedWith, [1000, undefined]);
  assert.is(socket.readyState, ReconnectingSocket.CLOSING);
  last().drop(1006);
  await clock.tick(60_000);
  assert.is(sockets.length, 1);
  assert.ok(events.includes('close'));
  assert.not.ok(events.includes('giveup'));
  assert.is(socket.readyState, ReconnectingSocket.CLOSED);
});

closing('passes a custom code and reason to the transport', async () => {
  const { socket, last } = setup();
  last().accept();
  socket.close(4000, 'done');
  assert.equal(last().closedWith, [4000, 'done']);
});

closing.run();
