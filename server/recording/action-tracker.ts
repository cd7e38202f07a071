// Turns the raw input of the person in control (DesktopInput from the gateway) into the actions a person
// would name: clicks (double and triple too), drags, typed text (one string per run of typing, Backspace
// applied), key chords and special keys, scrolls (notches of one direction together) and dropped files.
// Pure: times come with the events, so it is tested event by event. Mouse moves alone are not actions.
import type { DesktopInput } from '../desktop/index.ts';

export type ActionKind = 'click' | 'drag' | 'type' | 'key' | 'scroll' | 'drop';
export type Button = 'left' | 'middle' | 'right';

/**
 * One action; `at` is ms from the start of the recording. Objects are completed in place (a click
 * becomes a drag on release, typing grows), so whoever holds one sees it finished.
 */
export type Action = {
  kind: ActionKind;
  at: number;
  /** click, scroll: where; drag: from. Screen pixels. */
  x?: number;
  y?: number;
  /** drag: to. */
  toX?: number;
  toY?: number;
  button?: Button;
  /** click: 1, 2 (double) or 3 (triple). */
  count?: number;
  /** type: the text; key: the chord ('ctrl+s', 'Enter'); drop: the file name. */
  text?: string;
  direction?: 'up' | 'down';
  /** scroll: notches. */
  amount?: number;
  /** The keyframe taken when the action began (a path in the recording's folder). */
  keyframe?: string;
};

const BUTTONS: [bit: number, button: Button][] = [[1, 'left'], [4, 'right'], [2, 'middle']];
const WHEEL_UP = 8;
const WHEEL_DOWN = 16;
/** Farther than this (px) between press and release is a drag. */
const DRAG_PX = 4;
/** A press this soon after a click, at the same place, makes it a double (triple) click. */
const MULTI_CLICK_MS = 500;
/** Notches of one direction closer than this are one scroll. */
const SCROLL_GAP_MS = 1500;

const MODIFIERS: Record<number, 'shift' | 'ctrl' | 'alt' | 'super'> = {
  0xffe1: 'shift', 0xffe2: 'shift', 0xffe3: 'ctrl', 0xffe4: 'ctrl', 0xffe7: 'super', 0xffe8: 'super',
  0xffe9: 'alt', 0xffea: 'alt', 0xffeb: 'super', 0xffec: 'super',
};
/** Keys that only change what other keys produce (AltGr, Caps Lock, Num Lock): never actions. */
const IGNORED = new Set([0xfe03, 0xffe5, 0xff7f, 0xff14]);
const BACKSPACE = 0xff08;

const NAMES: Record<number, string> = {
  0xff08: 'BackSpace', 0xff09: 'Tab', 0xff0d: 'Enter', 0xff8d: 'Enter', 0xff1b: 'Escape', 0xffff: 'Delete',
  0xff50: 'Home', 0xff51: 'Left', 0xff52: 'Up', 0xff53: 'Right', 0xff54: 'Down', 0xff55: 'Page_Up',
  0xff56: 'Page_Down', 0xff57: 'End', 0xff61: 'Print', 0xff63: 'Insert', 0xff67: 'Menu', 0xff13: 'Pause',
  0x20: 'space', 0x2b: 'plus',
};
for (let i = 1; i <= 12; i++) NAMES[0xffbe + i - 1] = `F${i}`;

const KEYPAD: Record<number, string> = { 0xff80: ' ', 0xffaa: '*', 0xffab: '+', 0xffad: '-', 0xffae: '.', 0xffaf: '/' };
for (let i = 0; i <= 9; i++) KEYPAD[0xffb0 + i] = String(i);

/** The character a keysym types, or null for control keys (Latin-1 = keysym, else 0x01000000 | code point). */
export function charOf(keysym: number): string | null {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCharCode(keysym);
  if (keysym >= 0x01000020 && keysym <= 0x0110ffff) return String.fromCodePoint(keysym & 0xffffff);
  return KEYPAD[keysym] ?? null;
}

function keyName(keysym: number, withShift: boolean): string {
  const named = NAMES[keysym];
  if (named) return named;
  const ch = charOf(keysym);
  if (ch === null) return `0x${keysym.toString(16)}`;
  // Shift is already in the chord: 'ctrl+shift+s', not 'ctrl+shift+S'.
  return withShift ? ch.toLowerCase() : ch;
}

export class ActionTracker {
  readonly actions: Action[] = [];
  private mask = 0;
  private press: { bit: number; x: number; y: number; action: Action } | null = null;
  private lastClick: { action: Action; releasedAt: number } | null = null;
  private held = new Set<string>();
  private typing: Action | null = null;
  private scrolling: { action: Action; lastAt: number } | null = null;

  constructor(private readonly startedAt: number) {}

  /** Feeds one event; returns the action it began (the caller takes a keyframe for it), if any. */
  input(event: DesktopInput): Action | null {
    return event.kind === 'mouse' ? this.mouse(event) : this.key(event);
  }

  /** A file put on the desktop by a drop. */
  drop(name: string, at: number): Action {
    return this.begin({ kind: 'drop', at: this.since(at), text: name });
  }

  private since(at: number): number {
    return Math.max(0, at - this.startedAt);
  }

  private begin(action: Action): Action {
    if (action.kind !== 'type') this.typing = null;
    if (action.kind !== 'scroll') this.scrolling = null;
    this.actions.push(action);
    return action;
  }

  private mouse({ x, y, mask, at }: Extract<DesktopInput, { kind: 'mouse' }>): Action | null {
    const pressed = mask & ~this.mask;
    const released = this.mask & ~mask;
    this.mask = mask;
    let began: Action | null = null;

    if (this.press && released & this.press.bit) {
      const { action } = this.press;
      if (action.count === 1 && Math.max(Math.abs(x - this.press.x), Math.abs(y - this.press.y)) > DRAG_PX) {
        action.kind = 'drag';
        action.toX = x;
        action.toY = y;
        delete action.count;
        this.lastClick = null;
      } else this.lastClick = { action, releasedAt: at };
      this.press = null;
    }

    const wheel = pressed & WHEEL_UP ? 'up' : pressed & WHEEL_DOWN ? 'down' : null;
    if (wheel) {
      const current = this.scrolling;
      if (current && current.action.direction === wheel && at - current.lastAt < SCROLL_GAP_MS && this.actions.at(-1) === current.action) {
        current.action.amount! += 1;
        current.lastAt = at;
      } else {
        began = this.begin({ kind: 'scroll', at: this.since(at), x, y, direction: wheel, amount: 1 });
        this.scrolling = { action: began, lastAt: at };
      }
    }

    const hit = this.press ? undefined : BUTTONS.find(([bit]) => pressed & bit);
    if (hit) {
      const [bit, button] = hit;
      const last = this.lastClick?.action;
      const again = last && this.actions.at(-1) === last && last.button === button && last.count! < 3 &&
        at - this.lastClick!.releasedAt < MULTI_CLICK_MS && Math.abs(x - last.x!) <= DRAG_PX && Math.abs(y - last.y!) <= DRAG_PX;
      if (again) {
        last.count! += 1;
        this.press = { bit, x, y, action: last };
      } else {
        began = this.begin({ kind: 'click', at: this.since(at), x, y, button, count: 1 });
        this.press = { bit, x, y, action: began };
      }
    }
    return began;
  }

  private key({ keysym, down, at }: Extract<DesktopInput, { kind: 'key' }>): Action | null {
    const modifier = MODIFIERS[keysym];
    if (modifier) {
      if (down) this.held.add(modifier);
      else this.held.delete(modifier);
      return null;
    }
    if (!down || IGNORED.has(keysym)) return null;

    const chord = (['ctrl', 'alt', 'super'] as const).filter((m) => this.held.has(m));
    const ch = charOf(keysym);
    if (ch !== null && chord.length === 0) {
      if (this.typing && this.actions.at(-1) === this.typing) {
        this.typing.text += ch;
        return null;
      }
      this.typing = this.begin({ kind: 'type', at: this.since(at), text: ch });
      return this.typing;
    }
    if (keysym === BACKSPACE && chord.length === 0 && this.typing && this.actions.at(-1) === this.typing) {
      this.typing.text = [...this.typing.text!].slice(0, -1).join('');
      if (!this.typing.text) {
        this.actions.pop();
        this.typing = null;
      }
      return null;
    }
    const shift = this.held.has('shift');
    const keys = [...chord, ...(shift ? ['shift'] : []), keyName(keysym, shift)].join('+');
    return this.begin({ kind: 'key', at: this.since(at), text: keys });
  }
}
