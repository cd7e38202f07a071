// A typed character reaches the desktop at its keydown. Guacamole.Keyboard learns a printable key's
// character from the keypress that follows, which Chromium dispatches as an input event of its own: the
// key left the page 0.1-0.15 ms later than Backspace did, and later still on a busy page (desktop bench,
// BENCH_VERBOSE). A keydown's `key` already names the character, so the key is pressed through the
// keyboard's own `press` at once; the keypress then finds it pressed and sends nothing more, and the
// keyboard's repeat, pressed keys and key-up stay its own. Only while the keyboard's modifier state
// already matches the event (it resyncs it only when it interprets the event, now after the press), and
// never for Ctrl, Alt or Meta combinations, dead keys, composition or the keypad: those stay on its path.
import Guacamole from 'guacamole-common-js';

const MODIFIERS = ['alt', 'shift', 'ctrl', 'meta', 'hyper'] as const;

/** The keysym of the character a keydown types, when it can be known at the keydown; else null. */
export function typedKeysym(event: KeyboardEvent, keyboard: Guacamole.Keyboard): number | null {
  const { key } = event;
  // One UTF-16 unit, as the keypress's charCode would be; longer keys are names ('Dead', 'Enter') or astral.
  if (key.length !== 1 || event.isComposing || event.keyCode === 229 || event.location === KeyboardEvent.DOM_KEY_LOCATION_NUMPAD) return null;
  if (event.ctrlKey || event.altKey || event.metaKey || event.getModifierState('AltGraph')) return null;
  const now = Guacamole.Keyboard.ModifierState.fromKeyboardEvent(event);
  if (MODIFIERS.some((m) => now[m] !== keyboard.modifiers[m])) return null;
  const code = key.charCodeAt(0);
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return null; // control characters have keysyms of their own
  return code <= 0xff ? code : 0x01000000 | code;
}

/** Presses typed characters at their keydown while `active()`; returns what stops it. */
export function pressTypedKeysAtKeydown(element: HTMLElement, keyboard: Guacamole.Keyboard, active: () => boolean): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    if (!active()) return;
    const keysym = typedKeysym(event, keyboard);
    if (keysym !== null) keyboard.press(keysym);
  };
  element.addEventListener('keydown', onKeyDown, true);
  return () => element.removeEventListener('keydown', onKeyDown, true);
}
