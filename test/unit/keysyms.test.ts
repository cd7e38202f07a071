import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { keysymForCodePoint, keysymForName, keysymsForText, parseKeys } from '../../server/desktop/rfb/keysyms.ts';

const chars = suite('keysyms: characters');

chars('Latin-1 code points are their own keysyms, other Unicode gets 0x01000000', () => {
  assert.is(keysymForCodePoint('a'.codePointAt(0)!), 0x61);
  assert.is(keysymForCodePoint('~'.codePointAt(0)!), 0x7e);
  assert.is(keysymForCodePoint('é'.codePointAt(0)!), 0xe9);
  assert.is(keysymForCodePoint('€'.codePointAt(0)!), 0x010020ac);
  assert.is(keysymForCodePoint('✓'.codePointAt(0)!), 0x01002713);
  assert.is(keysymForCodePoint('😀'.codePointAt(0)!), 0x0101f600);
});

chars('control characters become their keys', () => {
  assert.equal(keysymsForText('a\nb\tc\r\n'), [0x61, 0xff0d, 0x62, 0xff09, 0x63, 0xff0d]);
});

chars('text is typed per code point (a surrogate pair is one key)', () => {
  assert.equal(keysymsForText('echo 😀'), [0x65, 0x63, 0x68, 0x6f, 0x20, 0x0101f600]);
});

// ---

const names = suite('keysyms: xdotool names');

names('named keys, case-insensitively', () => {
  assert.is(keysymForName('Return'), 0xff0d);
  assert.is(keysymForName('enter'), 0xff0d);
  assert.is(keysymForName('BackSpace'), 0xff08);
  assert.is(keysymForName('Escape'), 0xff1b);
  assert.is(keysymForName('Delete'), 0xffff);
  assert.is(keysymForName('Page_Down'), 0xff56);
  assert.is(keysymForName('F1'), 0xffbe);
  assert.is(keysymForName('F12'), 0xffc9);
  assert.is(keysymForName('super'), 0xffeb);
  assert.is(keysymForName('KP_5'), 0xffb5);
  assert.is(keysymForName('0xff0d'), 0xff0d);
});

names('single characters keep their case', () => {
  assert.is(keysymForName('a'), 0x61);
  assert.is(keysymForName('A'), 0x41);
});

names('combinations and sequences', () => {
  assert.equal(parseKeys('ctrl+l'), [[0xffe3, 0x6c]]);
  assert.equal(parseKeys('ctrl+shift+t'), [[0xffe3, 0xffe1, 0x74]]);
  assert.equal(parseKeys('alt+Tab'), [[0xffe9, 0xff09]]);
  assert.equal(parseKeys('ctrl+a Delete'), [[0xffe3, 0x61], [0xffff]]);
  assert.equal(parseKeys('ctrl+plus'), [[0xffe3, 0x2b]]);
  assert.equal(parseKeys('ctrl++'), [[0xffe3, 0x2b]]);
  assert.equal(parseKeys('+'), [[0x2b]]);
});

names('unknown names and empty input are errors with the name in the message', () => {
  assert.throws(() => keysymForName('Hyperdrive'), /Hyperdrive/);
  assert.throws(() => parseKeys(''), /No key/);
  assert.throws(() => parseKeys('ctrl+'), /Bad key/);
});

chars.run();
names.run();
