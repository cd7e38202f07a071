// X11 keysyms for typing text and for xdotool-style key names ('Return', 'ctrl+l', 'alt+Tab'). The same
// numbers travel in Guacamole `key` instructions and RFB KeyEvents, so viewer keys need no mapping.
// Rule for characters: Latin-1 code point = keysym, any other Unicode = 0x01000000 | code point.

const NAMED: Record<string, number> = {
  backspace: 0xff08, tab: 0xff09, linefeed: 0xff0a, clear: 0xff0b, return: 0xff0d, enter: 0xff0d,
  pause: 0xff13, scroll_lock: 0xff14, sys_req: 0xff15, escape: 0xff1b, esc: 0xff1b, delete: 0xffff, del: 0xffff,
  home: 0xff50, left: 0xff51, up: 0xff52, right: 0xff53, down: 0xff54,
  prior: 0xff55, page_up: 0xff55, pageup: 0xff55, next: 0xff56, page_down: 0xff56, pagedown: 0xff56,
  end: 0xff57, begin: 0xff58, select: 0xff60, print: 0xff61, execute: 0xff62, insert: 0xff63, ins: 0xff63,
  undo: 0xff65, redo: 0xff66, menu: 0xff67, find: 0xff68, cancel: 0xff69, help: 0xff6a, break: 0xff6b,
  num_lock: 0xff7f, kp_enter: 0xff8d, kp_multiply: 0xffaa, kp_add: 0xffab, kp_subtract: 0xffad,
  kp_decimal: 0xffae, kp_divide: 0xffaf,
  shift: 0xffe1, shift_l: 0xffe1, shift_r: 0xffe2, ctrl: 0xffe3, control: 0xffe3, control_l: 0xffe3,
  control_r: 0xffe4, caps_lock: 0xffe5, meta: 0xffe7, meta_l: 0xffe7, meta_r: 0xffe8,
  alt: 0xffe9, alt_l: 0xffe9, alt_r: 0xffea, super: 0xffeb, super_l: 0xffeb, super_r: 0xffec,
  win: 0xffeb, cmd: 0xffeb, command: 0xffeb, hyper_l: 0xffed, hyper_r: 0xffee,
  space: 0x20, exclam: 0x21, quotedbl: 0x22, numbersign: 0x23, dollar: 0x24, percent: 0x25, ampersand: 0x26,
  apostrophe: 0x27, quoteright: 0x27, parenleft: 0x28, parenright: 0x29, asterisk: 0x2a, plus: 0x2b,
  comma: 0x2c, minus: 0x2d, period: 0x2e, slash: 0x2f, colon: 0x3a, semicolon: 0x3b, less: 0x3c,
  equal: 0x3d, greater: 0x3e, question: 0x3f, at: 0x40, bracketleft: 0x5b, backslash: 0x5c,
  bracketright: 0x5d, asciicircum: 0x5e, underscore: 0x5f, grave: 0x60, quoteleft: 0x60, braceleft: 0x7b,
  bar: 0x7c, braceright: 0x7d, asciitilde: 0x7e,
};
for (let i = 1; i <= 12; i++) NAMED[`f${i}`] = 0xffbe + i - 1;
for (let i = 0; i <= 9; i++) NAMED[`kp_${i}`] = 0xffb0 + i;

/** Keysym of one Unicode code point; control characters map to their keys (\n → Return). */
export function keysymForCodePoint(cp: number): number {
  if (cp === 0x0a || cp === 0x0d) return 0xff0d;
  if (cp === 0x09) return 0xff09;
  if (cp === 0x08) return 0xff08;
  if (cp === 0x1b) return 0xff1b;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  return 0x01000000 | cp;
}

/** Keysyms for typing `text`, one per code point ("\r\n" types one Return). */
export function keysymsForText(text: string): number[] {
  const out: number[] = [];
  const normal = text.replace(/\r\n/g, '\n');
  for (const ch of normal) out.push(keysymForCodePoint(ch.codePointAt(0)!));
  return out;
}

/** One key name as xdotool writes it: 'Return', 'ctrl', 'F5', 'a', 'A', 'é', or '0xff0d'. */
export function keysymForName(name: string): number {
  if (/^0x[0-9a-f]{1,8}$/i.test(name)) return Number(name);
  const chars = [...name];
  if (chars.length === 1) return keysymForCodePoint(chars[0].codePointAt(0)!);
  const known = NAMED[name.toLowerCase()];
  if (known !== undefined) return known;
  throw new RangeError(`Unknown key name "${name}"`);
}

/**
 * Parses xdotool key syntax into chords: 'ctrl+shift+t' → [[Control_L, Shift_L, t]];
 * several chords are separated by spaces: 'ctrl+a Delete'.
 */
export function parseKeys(spec: string): number[][] {
  const chords = spec.trim().split(/\s+/).filter(Boolean);
  if (!chords.length) throw new RangeError('No key given');
  // A literal '+' key is written 'plus'; a trailing '+' (as in 'ctrl++') also means plus.
  return chords.map((chord) => {
    if (chord === '+') return [0x2b];
    const parts = chord.endsWith('++') ? [...chord.slice(0, -2).split('+'), '+'] : chord.split('+');
    if (parts.some((p) => p === '')) throw new RangeError(`Bad key combination "${chord}"`);
    return parts.map(keysymForName);
  });
}
