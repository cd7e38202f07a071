// The phone's keyboard, typing on the desktop (issue 47). A phone opens its keyboard only for a focused text
// field, and tells what was typed mostly through `input` events (keydown says keyCode 229, "Unidentified"),
// composing whole words before they count. So a hidden field takes the typing: whenever no composition is
// under way, what changed in it since the last look is sent as key presses (Backspace for what went, the
// characters that came). A composition (a word on Gboard, kana to kanji) is sent once, as it ends, never its
// drafts. The field keeps what was typed, so the keyboard's suggestions have their context, and is set back to
// a few spaces (so Backspace has something to delete) when it runs low or long, on focus, and after a key with
// a name (Enter, arrows, Escape…), which goes straight through as its keydown: the line it held is gone.

export const KEYSYM = {
  return: 0xff0d, backspace: 0xff08, tab: 0xff09, escape: 0xff1b,
  left: 0xff51, up: 0xff52, right: 0xff53, down: 0xff54, ctrl: 0xffe3, alt: 0xffe9,
} as const;

/** KeyboardEvent.key → keysym, for the keys that type no character. */
export const NAMED_KEYS: Record<string, number> = {
  Enter: KEYSYM.return, Backspace: KEYSYM.backspace, Tab: KEYSYM.tab, Escape: KEYSYM.escape,
  ArrowLeft: KEYSYM.left, ArrowUp: KEYSYM.up, ArrowRight: KEYSYM.right, ArrowDown: KEYSYM.down,
  Delete: 0xffff, Home: 0xff50, End: 0xff57, PageUp: 0xff55, PageDown: 0xff56, Insert: 0xff63,
};

/** What the field is set back to: spaces, so Backspace deletes something the diff sees (noVNC keeps underscores). */
export const SINK_FILL = ' '.repeat(8);
/** Set back when fewer characters are left (Backspace in an empty field may send nothing at all) or more are kept. */
const SINK_LOW = 3;
const SINK_HIGH = 200;

/** The keysym that types one character (one code point): Latin-1 as itself, the rest as Unicode keysyms. */
export function keysymOf(char: string): number {
  if (char === '\n' || char === '\r') return KEYSYM.return;
  if (char === '\t') return KEYSYM.tab;
  const code = char.codePointAt(0)!;
  if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)) return code;
  return 0x01000000 | code;
}

/** How `before` became `after` at its end: characters erased (Backspace) and text typed after them. */
export function textDiff(before: string, after: string): { erase: number; text: string } {
  const a = [...before];
  const b = [...after];
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  return { erase: a.length - same, text: b.slice(same).join('') };
}

export type TypeKey = (keysym: number, event?: KeyboardEvent) => void;

export type TextSink = {
  /** Sets the field back (a key sent from elsewhere, the key bar's, moved off the line it held). */
  refill: () => void;
  stop: () => void;
};

/**
 * Sends what is typed into `field` to `typeKey` (a press and release each, modifiers the caller's). Key
 * events are kept from the page (its Escape closes dialogs).
 */
export function bindTextSink(field: HTMLTextAreaElement, typeKey: TypeKey): TextSink {
  let composing = false;
  let seen = SINK_FILL;
  const refill = () => {
    field.value = SINK_FILL;
    seen = SINK_FILL;
    field.setSelectionRange(SINK_FILL.length, SINK_FILL.length);
  };
  const sync = () => {
    if (composing) return;
    const { erase, text } = textDiff(seen, field.value);
    for (let i = 0; i < erase; i++) typeKey(KEYSYM.backspace);
    for (const char of text) typeKey(keysymOf(char));
    seen = field.value;
    if (seen.length < SINK_LOW || seen.length > SINK_HIGH) refill();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    event.stopPropagation();
    if (event.isComposing || composing || event.keyCode === 229) return;
    const named = NAMED_KEYS[event.key];
    // A character with Ctrl, Alt or Meta (a hardware keyboard's shortcut) types nothing into the field: send it here.
    const chord = [...event.key].length === 1 && (event.ctrlKey || event.altKey || event.metaKey);
    if (named === undefined && !chord) return; // a character: its input event sends it
    event.preventDefault();
    typeKey(named ?? keysymOf(event.key.toLowerCase()), event);
    if (named !== undefined) refill();
  };
  const onCompositionStart = () => void (composing = true);
  const onCompositionEnd = () => {
    composing = false;
    sync();
  };
  const onInput = (event: Event) => {
    if ((event as InputEvent).isComposing) return;
    sync();
  };
  const contain = (event: Event) => event.stopPropagation();
  refill();
  field.addEventListener('focus', refill);
  field.addEventListener('keydown', onKeyDown);
  field.addEventListener('keyup', contain);
  field.addEventListener('keypress', contain);
  field.addEventListener('compositionstart', onCompositionStart);
  field.addEventListener('compositionend', onCompositionEnd);
  field.addEventListener('input', onInput);
  const stop = () => {
    field.removeEventListener('focus', refill);
    field.removeEventListener('keydown', onKeyDown);
    field.removeEventListener('keyup', contain);
    field.removeEventListener('keypress', contain);
    field.removeEventListener('compositionstart', onCompositionStart);
    field.removeEventListener('compositionend', onCompositionEnd);
    field.removeEventListener('input', onInput);
  };
  return { refill: () => void (composing || refill()), stop };
}
