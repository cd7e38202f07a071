import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bmpOnly, codePointLength, encode, GuacParser, GuacProtocolError } from '../../server/desktop/view/codec.ts';

const enc = suite('guacamole codec: encode');

enc('writes length-prefixed elements with the opcode first', () => {
  assert.is(encode('size', 0, 1280, 800), '4.size,1.0,4.1280,3.800;');
  assert.is(encode('nop'), '3.nop;');
  assert.is(encode('', 'ping', '1700000000000'), '0.,4.ping,13.1700000000000;');
});

enc('counts lengths in Unicode code points, not UTF-16 units or bytes', () => {
  assert.is(codePointLength('café ✓ 😀'), 8);
  // A lone half of a pair counts once, wherever it stands; ASCII (a base64 blob) counts its length.
  assert.is(codePointLength('a\uD800'), 2);
  assert.is(codePointLength('\uDC00a\uD83D'), 3);
  assert.is(codePointLength('😀😀x'), 3);
  assert.is(codePointLength('QUJD'.repeat(300)), 1200);
  assert.is(encode('name', 'café ✓ 😀'), '4.name,8.café ✓ 😀;');
  assert.is(encode('x', ''), '1.x,0.;');
});

enc('bmpOnly keeps BMP text and replaces what the 1.5.0 client would miscount', () => {
  assert.is(bmpOnly('café ✓'), 'café ✓');
  assert.is(bmpOnly('a😀b'), 'a\uFFFDb');
  assert.is(bmpOnly('lone \uD800 half'), 'lone \uFFFD half');
});

// ---

const parse = suite('guacamole codec: parser');

parse('round-trips instructions, Unicode included', () => {
  const cases: [string, ...string[]][] = [['size', '0', '1280', '800'], ['clipboard', '7', 'text/plain'], ['name', 'café ✓ 😀'], ['', 'ping', '123'], ['nop']];
  const p = new GuacParser();
  const got = p.feed(cases.map(([op, ...args]) => encode(op, ...args)).join(''));
  assert.equal(got.map((i) => [i.opcode, ...i.args]), cases);
  assert.not.ok(p.pending);
});

parse('an instruction may arrive in pieces, even inside a surrogate pair', () => {
  const text = encode('name', '😀x') + encode('nop');
  const p = new GuacParser();
  const out = [];
  for (let i = 0; i < text.length; i++) out.push(...p.feed(text[i]));
  assert.equal(out, [{ opcode: 'name', args: ['😀x'] }, { opcode: 'nop', args: [] }]);
});

parse('values may contain the delimiters', () => {
  const p = new GuacParser();
  assert.equal(p.feed(encode('blob', '1', 'a,b;c.d')), [{ opcode: 'blob', args: ['1', 'a,b;c.d'] }]);
});

parse('malformed input throws GuacProtocolError and the parser stays failed', () => {
  const bad = ['x.nop;', '4.nop;x', '3.nopX', '-1.a;', '3.nop,', '12345678901.a;', 'abc'];
  for (const text of bad) {
    const p = new GuacParser();
    try {
      // '3.nop,' is incomplete rather than wrong; finish it with garbage to make it wrong.
      p.feed(text === '3.nop,' ? text + 'zz;' : text);
      assert.unreachable(`accepted ${JSON.stringify(text)}`);
    } catch (err) {
      assert.instance(err, GuacProtocolError, text);
    }
    assert.throws(() => p.feed('3.nop;'), (e: unknown) => e instanceof GuacProtocolError);
  }
});

parse('caps how much an unfinished instruction may hold', () => {
  const p = new GuacParser({ maxBuffer: 100 });
  assert.throws(() => p.feed('4.blob,1.1,1000.'), (e: unknown) => e instanceof GuacProtocolError);
  const q = new GuacParser({ maxBuffer: 100 });
  q.feed('4.blob,1.1,90.');
  assert.throws(() => q.feed('x'.repeat(95)), (e: unknown) => e instanceof GuacProtocolError);
});

parse('caps the number of elements', () => {
  const p = new GuacParser({ maxElements: 4 });
  assert.throws(() => p.feed('1.a,1.b,1.c,1.d,1.e;'), (e: unknown) => e instanceof GuacProtocolError);
});

// ---

const pkg = suite('guacamole-common-js 1.5.0 packaging');

pkg('the namespace is the default export; a namespace import has no Client (breaks at run time)', async () => {
  const mod: any = await import('guacamole-common-js');
  assert.type(mod.default.Client, 'function');
  assert.type(mod.default.WebSocketTunnel, 'function');
  assert.type(mod.default.Keyboard, 'function');
  assert.type(mod.default.Mouse, 'function');
  assert.type(mod.default.ArrayBufferWriter, 'function');
  assert.is(mod.Client, undefined);
});

enc.run();
parse.run();
pkg.run();
