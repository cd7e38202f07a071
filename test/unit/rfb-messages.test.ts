// The RFB client cuts the server's messages from its socket's data as it comes: a message is handled in the
// data event that completes it (no promise in between: the key-to-echo path), whole and in order, and a
// malformed one ends the connection before the client waits for bytes it announced.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RfbClient, type RfbTransport } from '../../server/desktop/rfb/client.ts';
import { rawUpdate, rectHeader, serverHello, u16, u32, update, Wire } from './helpers/rfb-wire.ts';

const test = suite('rfb messages');

async function connected(width = 8, height = 4) {
  const wire = new Wire();
  const connecting = RfbClient.over(wire as unknown as RfbTransport, { frameInterval: 0 });
  wire.emit('data', serverHello(width, height));
  const client = await connecting;
  const events: string[] = [];
  client.on('update', (ops) => events.push(`update ${JSON.stringify(ops)}`));
  client.on('resize', (w, h) => events.push(`resize ${w}x${h}`));
  client.on('bell', () => events.push('bell'));
  client.on('clipboard', (text) => events.push(`clipboard ${text}`));
  let closedWith: Error | undefined;
  client.on('close', (err) => (closedWith = err));
  return { wire, client, events, closed: () => closedWith };
}

const pixel = (client: RfbClient, x: number, y: number) => [...client.fb.subarray((y * client.width + x) * 4, (y * client.width + x) * 4 + 4)];

test('an update that comes a byte at a time is applied once, within the data event that completes it', async () => {
  const { wire, client, events } = await connected();
  const bytes = rawUpdate(1, 1, 2, 2, 0x40);
  for (const byte of bytes.subarray(0, -1)) wire.emit('data', Buffer.from([byte]));
  assert.equal(events, []);
  assert.equal(pixel(client, 1, 1), [0, 0, 0, 255]);
  wire.emit('data', bytes.subarray(-1));
  assert.equal(events, ['update [{"kind":"rect","x":1,"y":1,"w":2,"h":2}]']);
  assert.equal(pixel(client, 2, 2), [0x40, 0x40, 0x40, 255]);
  assert.equal(pixel(client, 3, 3), [0, 0, 0, 255]);
  client.close();
});

test('messages that share a chunk are handled in the order they came', async () => {
  const { wire, client, events } = await connected();
  const cutText = Buffer.concat([Buffer.from([3, 0, 0, 0]), u32(2), Buffer.from('hé', 'latin1')]);
  wire.emit('data', Buffer.concat([rawUpdate(0, 0, 1, 1), Buffer.from([2]), cutText, rawUpdate(7, 3, 1, 1)]));
  assert.equal(events, [
    'update [{"kind":"rect","x":0,"y":0,"w":1,"h":1}]',
    'bell',
    'clipboard hé',
    'update [{"kind":"rect","x":7,"y":3,"w":1,"h":1}]',
  ]);
  client.close();
});

test('a DesktopSize sets the bounds of the rectangles after it, and LastRect ends an update of unknown length', async () => {
  const { wire, client, events } = await connected();
  const lastRect = rectHeader(0, 0, 0, 0, -224);
  const body = Buffer.concat([rectHeader(0, 0, 16, 8, -223), rectHeader(14, 6, 2, 2, 0), Buffer.alloc(16, 9), lastRect]);
  wire.emit('data', Buffer.concat([Buffer.from([0, 0]), u16(0xffff), body, Buffer.from([2])]));
  assert.equal(events, ['resize 16x8', 'update [{"kind":"rect","x":14,"y":6,"w":2,"h":2}]', 'bell']);
  assert.equal(pixel(client, 15, 7), [9, 9, 9, 255]);
  client.close();
});

test('a CopyRect copies within the framebuffer, and one whose source is off the screen ends the connection', async () => {
  const { wire, client, events, closed } = await connected();
  const copy = (sx: number, sy: number) => [rectHeader(4, 0, 2, 2, 1), Buffer.concat([u16(sx), u16(sy)])];
  wire.emit('data', Buffer.concat([rawUpdate(0, 0, 2, 2, 0x55), update(copy(0, 0))]));
  assert.equal(events[1], 'update [{"kind":"copy","x":4,"y":0,"w":2,"h":2,"sx":0,"sy":0}]');
  assert.equal(pixel(client, 5, 1), [0x55, 0x55, 0x55, 255]);
  wire.emit('data', update(copy(7, 0)));
  assert.match(String(closed()), /CopyRect source outside the screen/);
  assert.equal(events.length, 2);
});

test('a rectangle outside the screen ends the connection before its pixels are waited for', async () => {
  const { wire, events, closed } = await connected();
  wire.emit('data', update([rectHeader(0, 0, 9, 1, 0)]));
  assert.match(String(closed()), /RfbError: rect 9x1\+0\+0 outside the 8x4 screen/);
  assert.ok(wire.destroyed);
  assert.equal(events, []);
});

// --- Hextile

const px = (r: number, g: number, b: number) => Buffer.from([r, g, b, 0]);
/** A subrectangle inside its tile: position and size, as Hextile packs them. */
const sub = (x: number, y: number, w: number, h: number) => Buffer.from([(x << 4) | y, ((w - 1) << 4) | (h - 1)]);

test('a Hextile rectangle is applied as its tiles say: raw, background, subrectangles, colours carried over', async () => {
  const { wire, client, events } = await connected(24, 20);
  // 20×18 at (2,1): tiles 16×16, 4×16, 16×2, 4×2.
  const tiles = Buffer.concat([
    Buffer.from([2 | 4 | 8]), px(10, 10, 10), px(200, 0, 0), Buffer.from([2]), sub(0, 0, 1, 1), sub(15, 15, 1, 1),
    Buffer.from([1]), Buffer.concat(Array.from({ length: 4 * 16 }, (_, i) => px(i, 1, 2))),
    Buffer.from([8]), Buffer.from([1]), sub(3, 1, 2, 1), // background and foreground from the first tile
    Buffer.from([8 | 16]), Buffer.from([1]), px(0, 0, 250), sub(0, 0, 4, 2),
  ]);
  const bytes = update([rectHeader(2, 1, 20, 18, 5), tiles]);
  for (const byte of bytes.subarray(0, -1)) wire.emit('data', Buffer.from([byte]));
  assert.equal(events, []);
  wire.emit('data', bytes.subarray(-1));
  assert.equal(events, ['update [{"kind":"rect","x":2,"y":1,"w":20,"h":18}]']);
  assert.equal(pixel(client, 2, 1), [200, 0, 0, 255], 'first subrectangle');
  assert.equal(pixel(client, 3, 1), [10, 10, 10, 255], 'background');
  assert.equal(pixel(client, 17, 16), [200, 0, 0, 255], 'the tile\'s last pixel');
  assert.equal(pixel(client, 18, 1), [0, 1, 2, 255], 'raw tile, first pixel');
  assert.equal(pixel(client, 21, 16), [63, 1, 2, 255], 'raw tile, last pixel');
  assert.equal(pixel(client, 5, 18), [200, 0, 0, 255], 'foreground carried over');
  assert.equal(pixel(client, 4, 18), [10, 10, 10, 255], 'background carried over');
  assert.equal(pixel(client, 18, 17), [0, 0, 250, 255], 'a coloured subrectangle');
  assert.equal(pixel(client, 1, 1), [0, 0, 0, 255], 'outside the rectangle');
  assert.equal(pixel(client, 22, 19), [0, 0, 0, 255], 'outside the rectangle');
  client.close();
});

test('a Hextile subrectangle that leaves its tile ends the connection', async () => {
  const { wire, events, closed } = await connected(24, 20);
  const tiles = Buffer.concat([Buffer.from([2 | 4 | 8]), px(1, 1, 1), px(2, 2, 2), Buffer.from([1]), sub(3, 0, 2, 1)]);
  wire.emit('data', update([rectHeader(0, 0, 4, 4, 5), tiles]));
  assert.match(String(closed()), /RfbError: Hextile subrectangle 2x1\+3\+0 outside its 4x4 tile/);
  assert.ok(wire.destroyed);
  assert.equal(events, []);
});

test('empty rectangles, Raw or Hextile, are skipped, even as the last bytes that came', async () => {
  const { wire, client, events, closed } = await connected();
  wire.emit('data', update([rectHeader(1, 1, 0, 3, 0)], [rectHeader(2, 2, 4, 0, 5)]));
  assert.is(closed(), undefined, 'the connection stays');
  assert.equal(events, [], 'nothing changed');
  wire.emit('data', rawUpdate(0, 0, 1, 1, 0x21));
  assert.equal(pixel(client, 0, 0), [0x21, 0x21, 0x21, 255]);
  client.close();
});

test('a message type the protocol does not have ends the connection', async () => {
  const { wire, closed } = await connected();
  wire.emit('data', Buffer.from([9]));
  assert.match(String(closed()), /unexpected server message type 9/);
  assert.ok(wire.destroyed);
});

test.run();
