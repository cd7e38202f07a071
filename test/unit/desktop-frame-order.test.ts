// The order of work after an RFB update, which the desktop bench's key-to-echo latency depends on: the
// frame a viewer gets goes out before the next update request wakes Xvnc, and a frame of raw rectangles
// goes out without yielding to anything queued after it.
import { EventEmitter } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RfbClient, type RfbTransport } from '../../server/desktop/rfb/client.ts';
import { FramePump } from '../../server/desktop/view/frames.ts';
import type { SessionPort } from '../../server/desktop/view/ports.ts';

/** The client's side of a connection to an RFB server the test speaks for. */
class Wire extends EventEmitter {
  destroyed = false;
  onWrite: (data: Buffer) => void = () => {};
  write(data: Uint8Array): boolean {
    this.onWrite(Buffer.from(data));
    return true;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** RFB 3.8 with security None, then ServerInit for a width×height screen named "t". */
function serverHello(width: number, height: number): Buffer {
  const pixelFormat = Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
  return Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), Buffer.from([1, 1]), u32(0), u16(width), u16(height), pixelFormat, u32(1), Buffer.from('t')]);
}

/** A FramebufferUpdate with one raw rectangle. */
function rawUpdate(x: number, y: number, w: number, h: number): Buffer {
  return Buffer.concat([Buffer.from([0, 0]), u16(1), u16(x), u16(y), u16(w), u16(h), u32(0), Buffer.alloc(w * h * 4, 7)]);
}

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
