// The X11 client's wire format (server/desktop/start/x11-client.ts) against canned bytes: what it sends in the
// setup and its requests, and how it reads the setup reply and each reply it asks for, short or refused ones too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  getProperty, internAtom, packetSize, parseGeometry, parseMapState, parseProperty, parseQueryTree, parseSetup, queryTree, setupRequest,
  X11Error, xauthorityCookie,
} from '../../server/desktop/start/x11-client.ts';
import { xauthority } from '../../server/desktop/start/displays.ts';
import { errorPacket, replyPacket, setupReply } from './helpers/fake-x-server.ts';

const wire = suite('x11 wire format');
const hex = (b: Buffer) => b.toString('hex');

wire('the setup asks for protocol 11.0, little-endian, with the cookie, everything padded to 4 bytes', () => {
  const cookie = Buffer.alloc(16, 0xab);
  const setup = setupRequest(cookie);
  assert.is(hex(setup.subarray(0, 12)), '6c000b000000120010000000');
  assert.is(setup.subarray(12, 30).toString(), 'MIT-MAGIC-COOKIE-1');
  assert.is(hex(setup.subarray(30, 32)), '0000', 'the name padded from 18 to 20 bytes');
  assert.equal(setup.subarray(32), cookie);
  assert.is(setup.length, 48);
});

wire('requests: opcode, data byte, length in 4-byte units, then the body', () => {
  assert.is(hex(queryTree(0x519)), '0f00020019050000');
  assert.is(hex(internAtom('_NET_WM_NAME')), '100005000c000000' + Buffer.from('_NET_WM_NAME').toString('hex'));
  assert.is(internAtom('UTF8_STRING').length, 20, '11 bytes of name padded to 12');
  const get = getProperty(0x40000c, 39, 0, 2047);
  assert.is(hex(get.subarray(0, 4)), '14000600');
  assert.is(get.readUInt32LE(4), 0x40000c);
  assert.is(get.readUInt32LE(20), 512, 'at most 2047 bytes asked, rounded up to words');
});

wire('the setup reply: the first screen\'s root and size, past the vendor and pixmap formats', () => {
  assert.equal(parseSetup(setupReply(0x519, 1280, 800, 'The X.Org Foundation!')), {
    idBase: 0x400000, idMask: 0x1fffff, root: 0x519, width: 1280, height: 800,
  });
  const refused = Buffer.concat([Buffer.from([0, 21, 11, 0, 0, 0, 6, 0]), Buffer.from('Invalid MIT-MAGIC\x1b[2J\n'), Buffer.alloc(3)]);
  assert.throws(() => parseSetup(refused), (err: Error) => err instanceof X11Error && /refused the connection: Invalid MIT-MAGIC\?\[2J/.test(err.message));
  assert.throws(() => parseSetup(Buffer.from([2, 0, 11, 0, 0, 0, 0, 0])), /further authentication/);
  const screenless = setupReply();
  screenless[28] = 0;
  assert.throws(() => parseSetup(screenless), /without a screen/);
  assert.throws(() => parseSetup(setupReply().subarray(0, 60)), /without a screen/, 'cut short');
});

wire('a packet\'s size: a reply says its length, an error or an event is 32 bytes', () => {
  assert.is(packetSize(replyPacket(1, 0, Buffer.alloc(24 + 12))), 44);
  assert.is(packetSize(errorPacket(1, 3, 5)), 32);
  const event = Buffer.alloc(32);
  event[0] = 12; // Expose
  event.writeUInt32LE(1000, 4);
  assert.is(packetSize(event), 32, 'an event\'s bytes 4-8 are not a length');
  const huge = replyPacket(1, 0, Buffer.alloc(24));
  huge.writeUInt32LE(0xffffffff, 4);
  assert.is(packetSize(huge), 32 + 4 * 0xffffffff, 'the client compares it with its cap before waiting for it');
});

wire('QueryTree: the children bottom to top; a count past the reply\'s end is refused', () => {
  const body = Buffer.alloc(24 + 8);
  body.writeUInt16LE(2, 8);
  body.writeUInt32LE(0x20000d, 24);
  body.writeUInt32LE(0x30000a, 28);
  assert.equal(parseQueryTree(replyPacket(7, 0, body)), [0x20000d, 0x30000a]);
  body.writeUInt16LE(3, 8);
  assert.throws(() => parseQueryTree(replyPacket(7, 0, body)), RangeError);
});

wire('GetGeometry: signed position, size and border; GetWindowAttributes: the map state', () => {
  const body = Buffer.alloc(24);
  body.writeInt16LE(-5, 4);
  body.writeInt16LE(640, 6);
  body.writeUInt16LE(628, 8);
  body.writeUInt16LE(786, 10);
  body.writeUInt16LE(1, 12);
  assert.equal(parseGeometry(replyPacket(3, 24, body)), { x: -5, y: 640, width: 628, height: 786, border: 1 });
  const attributes = Buffer.alloc(36);
  attributes[18] = 2;
  assert.is(parseMapState(replyPacket(4, 0, attributes)), 2);
  assert.throws(() => parseMapState(replyPacket(4, 0, Buffer.alloc(12))), RangeError, 'a reply shorter than GetWindowAttributes\'s');
});

wire('GetProperty: type, format and the value; a length past the reply or an odd format is refused', () => {
  const value = Buffer.from('Über', 'utf8');
  const body = Buffer.alloc(24);
  body.writeUInt32LE(250, 0); // type
  body.writeUInt32LE(7, 4); // bytes after
  body.writeUInt32LE(value.length, 8);
  const reply = replyPacket(9, 8, Buffer.concat([body, value]));
  const p = parseProperty(reply);
  assert.equal({ ...p, value: p.value.toString('utf8') }, { type: 250, format: 8, value: 'Über', bytesAfter: 7 });
  body.writeUInt32LE(1000, 8);
  assert.throws(() => parseProperty(replyPacket(9, 8, Buffer.concat([body, value]))), RangeError);
  assert.throws(() => parseProperty(replyPacket(9, 7, Buffer.concat([body, value]))), /format 7/);
  body.writeUInt32LE(2, 8);
  assert.is(parseProperty(replyPacket(9, 32, Buffer.concat([body, Buffer.alloc(8)]))).value.length, 8, '32-bit format: 4 bytes an item');
});

wire('the cookie of an Xauthority file as the server writes it; a truncated or foreign file has none', () => {
  const file = xauthority(1);
  const cookie = xauthorityCookie(file)!;
  assert.is(cookie.length, 16);
  assert.equal(cookie, file.subarray(file.length - 16));
  assert.is(xauthorityCookie(file.subarray(0, file.length - 3)), null);
  assert.is(xauthorityCookie(Buffer.from('not an Xauthority')), null);
  assert.is(xauthorityCookie(Buffer.alloc(0)), null);
});

wire.run();
