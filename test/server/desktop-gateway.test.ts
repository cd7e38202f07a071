// The Guacamole gateway against a scripted desktop: the protocol rules that need no Xvnc (first
// instruction, mask 14, ping echo, nop, flow control and coalescing, control enforcement, clipboard
// Unicode, malformed input, tickets). The same rules against a real Xvnc are in desktop.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { encode, GuacParser, STATUS, type Instruction } from '../../server/desktop/view/codec.ts';
import { GuacGateway } from '../../server/desktop/view/gateway.ts';
import { DesktopSession } from '../../server/desktop/view/session.ts';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import { coalesce, contains } from '../../server/desktop/rfb/rects.ts';
import type { Desktop, Desktops, Rect } from '../../server/desktop/index.ts';

class FakeDesktop extends EventEmitter {
  agentId = 7;
  width = 64;
  height = 48;
  data = Buffer.alloc(64 * 48 * 4, Buffer.from([10, 20, 30, 255]));
  input: string[] = [];
  clipboard: string[] = [];
  holds = 0;
  private pos = { x: 0, y: 0 };
  framebuffer() {
    return { width: this.width, height: this.height, data: this.data };
  }
  pointer(x: number, y: number, mask: number) {
    this.pos = { x, y };
    this.input.push(`mouse ${x} ${y} ${mask}`);
  }
  key(keysym: number, down: boolean) {
    this.input.push(`key ${keysym} ${down}`);
  }
  async typeText() {}
  async setClipboard(text: string) {
    this.clipboard.push(text);
  }
  async screenshot() {
    return Buffer.alloc(0);
  }
  async putFile() {
    return '';
  }
  cursor() {
    return this.pos;
  }
  hold() {
    this.holds++;
    return () => void this.holds--;
  }
  /** A sound source whose chunks the test plays with `sound.play`. */
  sound = {
    mimetype: 'audio/L16;rate=44100,channels=2',
    listeners: new Set<(chunk: Buffer) => void>(),
    listen(cb: (chunk: Buffer) => void) {
      this.listeners.add(cb);
      return () => void this.listeners.delete(cb);
    },
    play(chunk: Buffer) {
      for (const cb of this.listeners) cb(chunk);
    },
  };
  /** Paints a rect and reports it like an RFB update. */
  paint(r: Rect, rgb: [number, number, number]) {
    for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) this.data.set([...rgb, 255], (y * this.width + x) * 4);
    this.emit('update', [r], []);
  }
}

class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closedWith: { code: number; reason: string } | null = null;
  send(data: string) {
    this.sent.push(data);
  }
  close(code: number, reason = '') {
    if (this.closedWith) return;
    this.closedWith = { code, reason };
    this.readyState = 3;
    this.emit('close', code, Buffer.from(reason));
  }
  /** What the client would send. */
  client(text: string) {
    this.emit('message', Buffer.from(text), false);
  }
  instructions(): Instruction[] {
    const p = new GuacParser({ maxBuffer: 1 << 26 });
    return this.sent.flatMap((m) => p.feed(m));
  }
}

function setup(options: ConstructorParameters<typeof GuacGateway>[3] = {}) {
  const desktop = new FakeDesktop();
  const manager: Desktops = {
    status: () => ({ available: true, provider: 'xvnc' }),
    acquire: async () => desktop as unknown as Desktop,
    running: () => desktop as unknown as Desktop,
    stopAll: async () => {},
  };
  const events: { topic: string; payload: any }[] = [];
  const gw = new GuacGateway(manager, (topic, payload) => events.push({ topic, payload }), () => {}, { frameInterval: 0, ...options });
  async function viewer(userId = 1) {
    const { ticket, sessionId } = gw.issueTicket(userId, desktop.agentId, 'Agent ✓ 😀');
    const attach = await gw.open(ticket);
    const ws = new FakeSocket();
    attach(ws as any);
    return { ws, sessionId };
  }
  return { desktop, gw, viewer, events };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
/** Waits for a condition, never for a fixed time; the deadline only bounds a failure. */
async function until(test: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await tick();
  }
}
/**
 * One turn of the timer queue: every frame flush already scheduled (setTimeout 0) has run by then, so a
 * frame that is held back (no ack, a full socket) is seen as not sent without waiting for a fixed time.
 */
const turn = () => new Promise((r) => setTimeout(r, 0));
const syncs = (ws: FakeSocket) => ws.instructions().filter((i) => i.opcode === 'sync');
const ack = (ws: FakeSocket) => ws.client(encode('sync', syncs(ws).at(-1)!.args[0]));

// ---

const start = suite('gateway: connection start');

start('first the uuid as the only argument of the internal opcode, then name, size, a full frame, sync', async () => {
  const { viewer } = setup();
  const { ws, sessionId } = await viewer();
  await until(() => syncs(ws).length === 1);
  assert.is(ws.sent[0], `0.,36.${sessionId};`);
  const ops = ws.instructions().map((i) => i.opcode);
  assert.equal(ops.slice(0, 4), ['', 'name', 'size', 'img']);
  assert.equal(ops.slice(-2), ['end', 'sync']);
  const ins = ws.instructions();
  assert.equal(ins.find((i) => i.opcode === 'size')!.args, ['0', '64', '48']);
  // Text outside the BMP would be miscounted by guacamole-common-js 1.5.0.
  assert.equal(ins.find((i) => i.opcode === 'name')!.args, ['Agent ✓ \uFFFD']);
});

start('images use mask 14 (OVER) on layer 0 and blobs of at most 8064 base64 characters', async () => {
  const { viewer, desktop } = setup();
  // Noise so the PNG is large enough for several blobs.
  desktop.width = 300;
  desktop.height = 200;
  desktop.data = Buffer.alloc(300 * 200 * 4);
  let seed = 1;
  for (let i = 0; i < desktop.data.length; i++) desktop.data[i] = i % 4 === 3 ? 255 : (seed = (seed * 69069 + 1) >>> 0) >>> 24;
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  const ins = ws.instructions();
  const img = ins.find((i) => i.opcode === 'img')!;
  assert.equal(img.args.slice(1), ['14', '0', 'image/png', '0', '0']);
  const blobs = ins.filter((i) => i.opcode === 'blob' && i.args[0] === img.args[0]);
  assert.ok(blobs.length > 3);
  assert.ok(blobs.every((b) => b.args[1].length <= 8064 && b.args[1].length % 4 === 0 || b === blobs.at(-1)));
  const png = Buffer.concat(blobs.map((b) => Buffer.from(b.args[1], 'base64')));
  assert.ok(decodeOwnPng(png).data.equals(desktop.data));
});

start('the tunnel ticket is single use and expires', async () => {
  const { gw } = setup();
  const { ticket } = gw.issueTicket(1, 7, 'x');
  await gw.open(ticket);
  try {
    await gw.open(ticket);
    assert.unreachable();
  } catch (err: any) {
    assert.is(err.status, 403);
  }
  // A ticket that lived its time (here: expired as it was issued).
  const late = setup({ ticketTtl: -1 }).gw;
  try {
    await late.open(late.issueTicket(1, 7, 'x').ticket);
    assert.unreachable();
  } catch (err: any) {
    assert.is(err.status, 403);
  }
});

// ---

const keep = suite('gateway: keep-alive');

keep('echoes the internal ping unchanged, even while a frame waits for its ack', async () => {
  const { viewer } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ws.client('0.,4.ping,13.1700000000123;');
  assert.is(ws.sent.at(-1), '0.,4.ping,13.1700000000123;');
});

keep('sends nop after a quiet period, and nothing else while the screen is idle', async () => {
  const { viewer } = setup({ nopInterval: 150 });
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ack(ws);
  const before = ws.sent.length;
  await until(() => ws.sent.length > before);
  const later = ws.sent.slice(before);
  assert.ok(later.length >= 1, 'a nop arrived');
  assert.ok(later.every((m) => m === '3.nop;'), later.join(' '));
});

// ---

const flow = suite('gateway: flow control');

flow('no second frame before the ack; changes meanwhile arrive as one coalesced frame', async () => {
  const { viewer, desktop } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  for (let i = 0; i < 40; i++) desktop.paint({ x: i, y: i % 10, w: 2, h: 1 }, [200, 0, 0]);
  await turn();
  assert.is(syncs(ws).length, 1, 'waits for the ack');
  ack(ws);
  await until(() => syncs(ws).length === 2);
  const frame = ws.instructions().slice(ws.instructions().lastIndexOf(syncs(ws)[0]) + 1);
  const imgs = frame.filter((i) => i.opcode === 'img');
  assert.ok(imgs.length >= 1 && imgs.length <= 8, `${imgs.length} images`);
});

flow('a small change goes as raw RGB rows, a large one as PNG; both are the framebuffer\'s pixels', async () => {
  const { viewer, desktop } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ack(ws);
  desktop.paint({ x: 3, y: 2, w: 2, h: 3 }, [200, 100, 50]);
  await until(() => syncs(ws).length === 2);
  /** The instructions between the n-th sync and the next. */
  const frame = (n: number) => {
    const all = ws.instructions();
    const at = all.flatMap((i, k) => (i.opcode === 'sync' ? [k] : []));
    return all.slice(at[n - 1] + 1, at[n]);
  };
  const small = frame(1);
  const img = small.find((i) => i.opcode === 'img')!;
  assert.equal(img.args.slice(1), ['14', '0', 'image/x-raw-rgb;width=2', '3', '2']);
  const rgb = Buffer.concat(small.filter((i) => i.opcode === 'blob').map((b) => Buffer.from(b.args[1], 'base64')));
  assert.equal([...rgb], Array.from({ length: 6 }, () => [200, 100, 50]).flat(), 'two pixels a row, three rows, R G B each');
  ack(ws);
  desktop.paint({ x: 0, y: 0, w: 64, h: 48 }, [1, 2, 3]); // 3072 pixels: still raw
  await until(() => syncs(ws).length === 3);
  assert.match(frame(2).find((i) => i.opcode === 'img')!.args[3], /^image\/x-raw-rgb;width=64$/);
  desktop.width = 128;
  desktop.height = 64;
  desktop.data = Buffer.alloc(128 * 64 * 4, 255);
  desktop.emit('resize');
  ack(ws);
  await until(() => syncs(ws).length === 4);
  const big = frame(3).find((i) => i.opcode === 'img')!;
  assert.is(big.args[3], 'image/png', '8192 pixels: PNG');
});

flow('for a while after the controller\'s input, frames skip the interval, and a second may go before the first is acked', async () => {
  const { viewer, desktop, gw } = setup({ frameInterval: 60_000, answerWindow: 500 });
  const { ws, sessionId } = await viewer();
  await until(() => syncs(ws).length === 1);
  gw.setControl(7, sessionId, 1, true);
  ack(ws);
  let n = 0;
  const change = () => desktop.paint({ x: n++ % 60, y: 0, w: 2, h: 2 }, [n % 256, 9, 9]);
  change();
  await turn();
  await turn();
  assert.is(syncs(ws).length, 1, 'a change by itself waits for the interval (a minute here)');

  ws.client(encode('key', 0x61, 1));
  await until(() => syncs(ws).length === 2);
  const answeredAt = Date.now();
  change(); // a click's second picture (a menu after the pointer's shape): not held for the first's ack
  await until(() => syncs(ws).length === 3);
  change();
  await turn();
  await turn();
  assert.is(syncs(ws).length, 3, 'two frames in flight at most');
  ack(ws); // the newest: both are drawn
  await until(() => syncs(ws).length === 4);
  ack(ws);

  await until(() => Date.now() > answeredAt + 500); // the answer window has passed
  change();
  await turn();
  await turn();
  assert.is(syncs(ws).length, 4, 'the interval again');
  ws.client(encode('mouse', 5, 5, 0)); // a move is input too: hovering answers at once
  await until(() => syncs(ws).length === 5);
});

flow('a PNG that answers input is deflated for speed, one that does not for size, for every viewer', async () => {
  const { viewer, desktop, gw } = setup({ answerWindow: 60_000 });
  desktop.width = 128;
  desktop.height = 64;
  desktop.data = Buffer.alloc(128 * 64 * 4, 255);
  // A watcher connected first: its frame asks for the encode before the controller's does.
  const { ws: watcher } = await viewer(2);
  const { ws, sessionId } = await viewer();
  await until(() => syncs(ws).length === 1 && syncs(watcher).length === 1);
  gw.setControl(7, sessionId, 1, true);
  /** The newest frame's PNG (all of the screen) and the FLEVEL of its zlib header: 0 for level 1, 2 for level 6. */
  const newest = (socket: FakeSocket) => {
    const all = socket.instructions();
    const frame = all.slice(all.findLastIndex((i, k) => i.opcode === 'sync' && k < all.length - 1) + 1);
    const img = frame.find((i) => i.opcode === 'img')!;
    assert.is(img.args[3], 'image/png');
    const png = Buffer.from(frame.filter((i) => i.opcode === 'blob' && i.args[0] === img.args[0]).map((b) => b.args[1]).join(''), 'base64');
    return { pixel: [...decodeOwnPng(png).data.subarray(0, 3)], level: png[png.indexOf('IDAT') + 5] >> 6 };
  };
  ack(ws);
  ack(watcher);
  desktop.paint({ x: 0, y: 0, w: 128, h: 64 }, [5, 6, 7]); // nobody has acted: a screen that changes by itself
  await until(() => syncs(ws).length === 2 && syncs(watcher).length === 2);
  assert.equal(newest(ws), { pixel: [5, 6, 7], level: 2 });
  assert.equal(newest(watcher), { pixel: [5, 6, 7], level: 2 });
  ack(ws);
  ack(watcher);
  ws.client(encode('key', 0x61, 1));
  desktop.paint({ x: 0, y: 0, w: 128, h: 64 }, [8, 9, 10]); // what the key opened (a menu, a page)
  await until(() => syncs(ws).length === 3 && syncs(watcher).length === 3);
  assert.equal(newest(ws), { pixel: [8, 9, 10], level: 0 });
  assert.equal(newest(watcher), { pixel: [8, 9, 10], level: 0 }, 'one encode, shared');
});

flow('a socket with too much unsent data gets no frames until it drains', async () => {
  const { viewer, desktop } = setup({ maxBuffered: 1000 });
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ws.bufferedAmount = 5000;
  ack(ws);
  desktop.paint({ x: 0, y: 0, w: 4, h: 4 }, [0, 255, 0]);
  await turn();
  assert.is(syncs(ws).length, 1);
  ws.bufferedAmount = 0;
  await until(() => syncs(ws).length === 2);
});

flow('copies are forwarded as copy with mask 14 while the viewer is in step', async () => {
  const { viewer, desktop } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ack(ws);
  desktop.emit('update', [], [{ src: { x: 0, y: 10, w: 64, h: 30 }, dx: 0, dy: 0 }]);
  await until(() => syncs(ws).length === 2);
  const copy = ws.instructions().find((i) => i.opcode === 'copy')!;
  assert.equal(copy.args, ['0', '0', '10', '64', '30', '14', '0', '0', '0']);
});

flow('a copy after pending pixels turns into pixels (its source on the viewer is stale)', async () => {
  const { viewer, desktop } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  desktop.paint({ x: 0, y: 10, w: 64, h: 2 }, [1, 2, 3]); // pending: the viewer has not acked yet
  desktop.emit('update', [], [{ src: { x: 0, y: 10, w: 64, h: 30 }, dx: 0, dy: 0 }]);
  ack(ws);
  await until(() => syncs(ws).length === 2);
  assert.not.ok(ws.instructions().some((i) => i.opcode === 'copy'));
});

flow('a resize sends size and a full frame', async () => {
  const { viewer, desktop } = setup();
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  ack(ws);
  desktop.width = 32;
  desktop.height = 16;
  desktop.data = Buffer.alloc(32 * 16 * 4, 255);
  desktop.emit('resize', 32, 16);
  await until(() => syncs(ws).length === 2);
  const sizes = ws.instructions().filter((i) => i.opcode === 'size');
  assert.equal(sizes.at(-1)!.args, ['0', '32', '16']);
});

flow('coalescing: a scrolling terminal\'s ~200 line rects become a few rects covering them all', () => {
  const rects: Rect[] = [];
  for (let line = 0; line < 50; line++) for (let seg = 0; seg < 4; seg++) rects.push({ x: 4 + seg * 150, y: 4 + line * 15, w: 140, h: 13 });
  const out = coalesce(rects);
  assert.ok(out.length <= 8, `${out.length} rects`);
  for (const r of rects) assert.ok(out.some((o) => contains(o, r)), 'every input is covered');
  // Two far-apart small changes stay apart instead of becoming one huge rect.
  assert.is(coalesce([{ x: 0, y: 0, w: 10, h: 10 }, { x: 1000, y: 700, w: 10, h: 10 }]).length, 2);
});

// ---

const control = suite('gateway: control');

control('input is ignored from viewers without control and accepted from the controller', async () => {
  const { viewer, desktop, gw, events } = setup();
  const a = await viewer(1);
  const b = await viewer(1);
  a.ws.client(encode('mouse', 5, 5, 1) + encode('key', 0x61, 1));
  assert.equal(desktop.input, []);
  assert.equal(gw.setControl(7, a.sessionId, 1, true), { session_id: a.sessionId, control: true });
  a.ws.client(encode('mouse', 32, 24, 1) + encode('key', 0x61, 1) + encode('key', 0x61, 0));
  b.ws.client(encode('mouse', 1, 1, 0) + encode('key', 0x62, 1));
  assert.equal(desktop.input, ['mouse 32 24 1', `key ${0x61} true`, `key ${0x61} false`]);
  // The action feed moves the agent's cursor: a person's own input is not published on it.
  assert.not.ok(events.some((e) => e.topic === 'agent:7:actions'));
  // Taking control moves it; the old controller is told and becomes read-only.
  gw.setControl(7, b.sessionId, 1, true);
  assert.ok(a.ws.sent.includes(encode('x-control', 0)));
  a.ws.client(encode('key', 0x63, 1));
  assert.not.ok(desktop.input.includes(`key ${0x63} true`));
  // Giving it up.
  assert.equal(gw.setControl(7, b.sessionId, 1, false).control, false);
  b.ws.client(encode('key', 0x64, 1));
  assert.not.ok(desktop.input.includes(`key ${0x64} true`));
});

control('only a connected viewer of the same user can take control', async () => {
  const { viewer, gw } = setup();
  const a = await viewer(1);
  assert.throws(() => gw.setControl(7, a.sessionId, 2, true), (e: any) => e.status === 404);
  assert.throws(() => gw.setControl(7, 'no-such-session', 1, true), (e: any) => e.status === 404);
  a.ws.close(1000);
  assert.throws(() => gw.setControl(7, a.sessionId, 1, true), (e: any) => e.status === 404);
});

control('control ends with the controller\'s tunnel, and pressed buttons are released', async () => {
  const { viewer, desktop, gw } = setup();
  const a = await viewer(1);
  gw.setControl(7, a.sessionId, 1, true);
  a.ws.client(encode('mouse', 3, 4, 1));
  a.ws.close(1006);
  assert.is(desktop.input.at(-1), 'mouse 3 4 0');
  assert.equal(gw.describe(7), { viewers: 0, control: null });
});

control('control is a lease of its person: a reload gets it back within the lease, without a release in between', async () => {
  const { viewer, desktop, gw } = setup();
  const seen: string[] = [];
  gw.on('control', (agentId, c) => seen.push(`${agentId} ${c.userId} ${c.state}`));
  const a = await viewer(1);
  gw.setControl(7, a.sessionId, 1, true);
  a.ws.close(1006); // the page reloads
  assert.equal(seen, ['7 1 taken'], 'no release when the tunnel ends');
  assert.equal(gw.describe(7), { viewers: 0, control: null });
  const b = await viewer(1);
  assert.equal(gw.setControl(7, b.sessionId, 1, true).control, true);
  b.ws.client(encode('key', 0x61, 1));
  assert.ok(desktop.input.includes(`key ${0x61} true`));
  // Another tab of the same person takes it over explicitly; the first is told.
  const c = await viewer(1);
  gw.setControl(7, c.sessionId, 1, true);
  assert.ok(b.ws.sent.includes(encode('x-control', 0)));
  assert.equal(gw.setControl(7, c.sessionId, 1, false).control, false);
  assert.equal(seen, ['7 1 taken', '7 1 taken', '7 1 taken', '7 1 released']);
});

control('a reloaded page\'s first input takes control back within the lease, before its own request for it arrives', async () => {
  const { viewer, desktop, gw } = setup();
  const seen: string[] = [];
  const input: string[] = [];
  gw.on('control', (_, c) => seen.push(`${c.userId} ${c.state}`));
  gw.on('input', (_, e) => e.kind === 'key' && e.down && input.push(String.fromCharCode(e.keysym)));
  const a = await viewer(1);
  gw.setControl(7, a.sessionId, 1, true);
  a.ws.client(encode('key', 0x61, 1) + encode('key', 0x61, 0));
  a.ws.close(1006); // the page reloads in control mode
  const stranger = await viewer(2);
  stranger.ws.client(encode('key', 0x78, 1));
  const b = await viewer(1);
  // The page sends what the person clicks and types as soon as the tunnel is up; its control request comes after.
  b.ws.client(encode('mouse', 320, 400, 1) + encode('mouse', 320, 400, 0) + encode('key', 0x62, 1) + encode('key', 0x62, 0));
  assert.equal(desktop.input.filter((i) => i.startsWith('key') && i.endsWith('true')), [`key ${0x61} true`, `key ${0x62} true`]);
  assert.ok(desktop.input.includes('mouse 320 400 1'), 'the click reached the desktop');
  assert.equal(input, ['a', 'b'], 'and the hand-back log: the same take-over, no release in between');
  assert.ok(b.ws.sent.includes(encode('x-control', 1)));
  assert.equal(gw.setControl(7, b.sessionId, 1, true), { session_id: b.sessionId, control: true });
  assert.equal(seen, ['1 taken', '1 taken']);
  // Given back on purpose, the lease is gone: input from the person's viewers no longer takes control.
  gw.setControl(7, b.sessionId, 1, false);
  const c = await viewer(1);
  c.ws.client(encode('key', 0x63, 1));
  b.ws.client(encode('key', 0x64, 1));
  assert.not.ok(desktop.input.some((i) => i === `key ${0x63} true` || i === `key ${0x64} true`));
  assert.equal(gw.describe(7).control, null);
});

control('a lease nobody takes back runs out', async () => {
  const previous = DesktopSession.leaseMs;
  DesktopSession.leaseMs = 30;
  try {
    const { viewer, gw } = setup();
    const seen: string[] = [];
    gw.on('control', (_, c) => seen.push(c.state));
    const a = await viewer(2);
    gw.setControl(7, a.sessionId, 2, true);
    a.ws.close(1006);
    await until(() => seen.includes('expired'));
    assert.equal(seen, ['taken', 'expired']);
  } finally {
    DesktopSession.leaseMs = previous;
  }
});

// ---

const sound = suite('gateway: sound');

const audioOf = (ws: FakeSocket) => ws.instructions().filter((i) => ['audio', 'blob'].includes(i.opcode) && i.args[0] === '1001');

sound('one audio stream per viewer, opened by the first chunk; blobs decode to whole frames, in order', async () => {
  const { viewer, desktop } = setup({ blobChars: 100 });
  const { ws } = await viewer();
  await until(() => syncs(ws).length === 1);
  assert.is(desktop.sound.listeners.size, 1, 'the session listens while a viewer is there');
  const pcm = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  desktop.sound.play(pcm.subarray(0, 600));
  const first = audioOf(ws);
  desktop.sound.play(pcm.subarray(600));
  const [open, ...blobs] = audioOf(ws);
  assert.equal(open, { opcode: 'audio', args: ['1001', 'audio/L16;rate=44100,channels=2'] });
  // blobChars 100 → 96-character blobs (72 bytes: whole frames of any raw layout); a chunk's last may be shorter.
  const sizes = (list: typeof blobs) => list.map((b) => b.args[1].length);
  assert.equal(sizes(first.slice(1)), [96, 96, 96, 96, 96, 96, 96, 96, 32]);
  assert.equal(sizes(blobs.slice(first.length - 1)), [96, 96, 96, 96, 96, 56]);
  assert.ok(Buffer.concat(blobs.map((b) => Buffer.from(b.args[1], 'base64'))).equals(pcm));
  ws.close(1000);
  await until(() => desktop.sound.listeners.size === 0);
});

sound('a viewer that refuses the type gets no more audio; a backlogged viewer skips it', async () => {
  const { viewer, desktop } = setup();
  const refusing = await viewer();
  const slow = await viewer();
  await until(() => syncs(refusing.ws).length === 1 && syncs(slow.ws).length === 1);
  desktop.sound.play(Buffer.alloc(400, 1));
  refusing.ws.client(encode('ack', 1001, 'BAD TYPE', 0x030f));
  slow.ws.bufferedAmount = 10 * 1024 * 1024;
  desktop.sound.play(Buffer.alloc(400, 2));
  assert.is(audioOf(refusing.ws).length, 2, 'audio + its one blob, nothing after the refusal');
  assert.is(audioOf(slow.ws).length, 2, 'the second chunk was dropped, not queued');
  slow.ws.bufferedAmount = 0;
  desktop.sound.play(Buffer.alloc(400, 3));
  assert.is(audioOf(slow.ws).length, 3);
  assert.is(audioOf(refusing.ws).length, 2);
});

// ---

const clip = suite('gateway: clipboard');

clip('browser → desktop: UTF-8 blobs (what ArrayBufferWriter sends) survive "café ✓ 😀"', async () => {
  const { viewer, desktop, gw } = setup();
  const a = await viewer(1);
  gw.setControl(7, a.sessionId, 1, true);
  const bytes = Buffer.from('café ✓ 😀', 'utf8');
  a.ws.client(encode('clipboard', 3, 'text/plain') + encode('blob', 3, bytes.subarray(0, 5).toString('base64')));
  a.ws.client(encode('blob', 3, bytes.subarray(5).toString('base64')) + encode('end', 3));
  assert.equal(desktop.clipboard, ['café ✓ 😀']);
  assert.ok(a.ws.sent.includes(encode('ack', 3, 'OK', 0)));
});

clip('browser → desktop is refused without control', async () => {
  const { viewer, desktop } = setup();
  const a = await viewer(1);
  a.ws.client(encode('clipboard', 3, 'text/plain') + encode('blob', 3, Buffer.from('x').toString('base64')) + encode('end', 3));
  assert.equal(desktop.clipboard, []);
});

clip('desktop → browser: a clipboard stream of UTF-8 bytes to every viewer', async () => {
  const { viewer, desktop } = setup();
  const a = await viewer(1);
  desktop.emit('clipboard', 'café ✓ 😀');
  const ins = a.ws.instructions();
  const open = ins.find((i) => i.opcode === 'clipboard')!;
  assert.is(open.args[1], 'text/plain');
  const data = ins.filter((i) => i.opcode === 'blob' && i.args[0] === open.args[0]).map((i) => Buffer.from(i.args[1], 'base64'));
  assert.is(Buffer.concat(data).toString('utf8'), 'café ✓ 😀');
  assert.ok(ins.some((i) => i.opcode === 'end' && i.args[0] === open.args[0]));
});

// ---

const bad = suite('gateway: malformed input');

bad('a malformed instruction closes the tunnel with an error and status 768; other viewers stay', async () => {
  const { viewer, gw } = setup();
  const a = await viewer(1);
  const b = await viewer(1);
  a.ws.client('5.mouse,1.1;zz');
  const err = a.ws.instructions().find((i) => i.opcode === 'error')!;
  assert.ok(err, 'an error instruction');
  assert.is(err.args[1], String(STATUS.CLIENT_BAD_REQUEST));
  assert.equal(a.ws.closedWith, { code: 1008, reason: '768' });
  assert.is(b.ws.closedWith, null);
  assert.is(gw.describe(7).viewers, 1);
});

bad('well-formed but wrong arguments close it too', async () => {
  for (const text of [encode('mouse', 'x', 1, 0), encode('key', 65, 'maybe')]) {
    const { viewer, gw } = setup();
    const a = await viewer(1);
    gw.setControl(7, a.sessionId, 1, true);
    a.ws.client(text);
    assert.is(a.ws.closedWith?.reason, '768', text);
  }
});

bad('binary frames close it', async () => {
  const { viewer } = setup();
  const a = await viewer(1);
  a.ws.emit('message', Buffer.from([1, 2, 3]), true);
  assert.is(a.ws.closedWith?.reason, '768');
});

bad('the desktop going away ends tunnels with 520 (upstream unavailable), so clients reconnect', async () => {
  const { viewer, desktop } = setup();
  const a = await viewer(1);
  desktop.emit('closed', new Error('Xvnc died'));
  assert.equal(a.ws.closedWith, { code: 1011, reason: '520' });
  assert.is(desktop.holds, 0);
});

start.run();
keep.run();
flow.run();
control.run();
sound.run();
clip.run();
bad.run();
