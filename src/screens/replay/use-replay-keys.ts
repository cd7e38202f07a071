// The replay's keys on the whole page (←/→, space, J/K/L; playback-clock.ts says what each does), except
// where a key means something else: typing in a field, a dialog on top, a tab list's own arrows, a
// modifier held (browser shortcuts), and space on a button or link (which presses it).
import { useEffect, useRef } from 'react';
import { commandForKey, type Command } from './playback-clock.ts';

const TYPING = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';
const OWN_KEYS = '[role="dialog"], [role="tablist"], [role="menu"], [role="listbox"]';
const PRESSABLE = 'button, a[href], summary, [role="button"]';

/** Whether the replay should act on this key event (pure: the event's key, modifiers and target). */
export function isReplayKey(event: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey' | 'defaultPrevented' | 'target'>): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return false;
  if (!commandForKey(event.key)) return false;
  const target = event.target instanceof Element ? event.target : null;
  if (!target) return true;
  if (target.closest(TYPING) || target.closest(OWN_KEYS)) return false;
  if (event.key === ' ' && target.closest(PRESSABLE)) return false;
  return true;
}

export function useReplayKeys(onCommand: (command: Command) => void, enabled = true): void {
  const handler = useRef(onCommand);
  handler.current = onCommand;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      if (!isReplayKey(event)) return;
      event.preventDefault(); // no page scroll on space and the arrows
      handler.current(commandForKey(event.key)!);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [enabled]);
}
