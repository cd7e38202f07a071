// The order of work after an RFB update, which the desktop bench's key-to-echo latency depends on: the
// frame a viewer gets goes out before the next update request wakes Xvnc, a frame of raw rectangles goes
// out without yielding to anything queued after it, and for a while after input the update requests are not
// held by the frame cap.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RfbClient, type RfbTransport } from '../../server/desktop/rfb/client.ts';
import { FramePump } from '../../server/desktop/view/frames.ts';
import type { SessionPort } from '../../server/desktop/view/ports.ts';
import { rawUpdate, serverHello, Wire } from './helpers/rfb-wire.ts';

const test = suite('desktop frame order');

test('after an update, the frames its listeners flush go out before the next update request is written', async () => {
  const wire = new Wire();
  const connecting = RfbClient.over(wire as unknown as RfbTransport, { frameInterval: 0 });
  wire.emit('data', serverHello(64, 32));
  const client = await connecting;
  const order: string[] = [];
  wire.onWrite = (data) => data[0] === 3 && order.push('update request');
  // As the gateway's frame pump does: its flush is queued with process.nextTick.
  client.on('update', () => process.nextTick(() => order.push('frame sent')));
  wire.emit('data', rawUpdate(1, 2, 3, 4));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(order, ['frame sent', 'update request']);
  client.close();
});

test('after input, update requests skip the frame cap for the answer window; otherwise they wait it out', async () => {
  const wire = new Wire();
  const connecting = RfbClient.over(wire as unknown as RfbTransport, { frameInterval: 60_000, answerWindow: 300 });
  wire.emit('data', serverHello(64, 32));
  const client = await connecting;
  let requests = 0;
  wire.onWrite = (data) => data[0] === 3 && requests++;
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  wire.emit('data', rawUpdate(1, 2, 3, 4));
  await settled();
  assert.is(requests, 0, 'a change by itself: the next request waits for the cap (a minute here)');

  client.key(0x61, true);
  assert.is(requests, 1, 'input sends the held request at once');
  const answeredAt = Date.now();
  for (let i = 2; i <= 3; i++) {
    wire.emit('data', rawUpdate(i, 2, 3, 4)); // what answers the key: a pointer's shape, then a menu
    await settled();
    assert.is(requests, i, `update ${i - 1} after the key: the next request at once`);
  }
  while (Date.now() <= answeredAt + 300) await new Promise((resolve) => setTimeout(resolve, 20)); // the window has passed
  wire.emit('data', rawUpdate(5, 2, 3, 4));
  await settled();
  assert.is(requests, 3, 'the cap again');
  client.pointer(10, 10, 0); // a move is input too
  assert.is(requests, 4);
  client.close();
});

test('a frame of raw rectangles is sent within the flush, before anything queued after it runs', async () => {
  const sent: string[] = [];
  const order: string[] = [];
  const width = 32;
  const height = 16;
  const session = {
    gateway: { options: { frameInterval: 0, nopInterval: 5000, maxBuffered: 1 << 20, blobChars: 8064, ticketTtl: 60_000 }, log: () => {} },
    desktop: { agentId: 1, width, height, framebuffer: () => ({ width, height, data: Buffer.alloc(width * height * 4, 9) }) },
    png: () => assert.unreachable('a small rectangle is not a PNG') as never,
  } as unknown as SessionPort;
  let stream = 0;
  const pump = new FramePump({
    session, buffered: () => 0, closed: () => false, nextStream: () => ++stream,
    send: (data) => {
      sent.push(data);
      order.push('frame sent');
    },
  });
  pump.note([{ x: 2, y: 3, w: 4, h: 5 }], []);
  process.nextTick(() => order.push('queued after'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(order, ['frame sent', 'queued after']);
  assert.match(sent[0], /image\/x-raw-rgb;width=4/);
});

test.run();
