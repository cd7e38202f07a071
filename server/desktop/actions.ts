// Computer-use actions (Anthropic's computer tool, docs/protocols.md §2.4) on a Desktop, for the runner.
//
//   const desktop = await services.desktops.acquire(agentId);   // cheap when it already runs
//   const result = await performAction(desktop, { action: 'left_click', coordinate: [640, 400] },
//     { publish: (topic, payload) => services.bus.publish(topic, payload), signal });
//   result.screenshot  // PNG Buffer after actions that change the screen (and for 'screenshot')
//   result.text        // 'X=…,Y=…' for cursor_position
//
// Coordinates are screen pixels of the desktop (desktop.width × desktop.height, 1280×800 by default).
// Every action that touches the desktop publishes {kind, x, y, source: 'agent'} with x, y as fractions of
// the screen on `agent:<id>:actions` (the action socket forwards it to the cursor overlay). Invalid input
// (unknown key names, coordinates off screen, unknown actions) throws ActionError with a message meant for
// the model. Don't hold a Desktop across a crash: acquire it again per action.
import { ActionError } from './errors.ts';
import { parseKeys } from './rfb/keysyms.ts';
import type { ActionResult, ComputerAction, Desktop, PerformAction } from './types.ts';
import { TOPICS } from '../realtime/topics.ts';

const BUTTON = { left: 1, middle: 2, right: 4 };
const WHEEL = { up: 8, down: 16, left: 32, right: 64 };
const MAX_WAIT_S = 60;
const MAX_SCROLL = 50;
const MAX_TYPE = 20_000;

export const performAction: PerformAction = async (desktop, action, options) => {
  const { publish, signal } = options;
  signal?.throwIfAborted();
  const event = (kind: string, x: number, y: number) =>
    publish(TOPICS.agentActions(desktop.agentId), { kind, x: frac(x, desktop.width), y: frac(y, desktop.height), source: 'agent' });
  const at = () => desktop.cursor?.() ?? { x: 0, y: 0 };

  switch (action.action) {
    case 'screenshot':
      // No input of ours: a screen that has been still for a while is ready now.
      return { screenshot: await shot(desktop, false) };
    case 'cursor_position': {
      const c = at();
      return { text: `X=${c.x},Y=${c.y}` };
    }
    case 'mouse_move': {
      const [x, y] = point(desktop, action.coordinate);
      desktop.pointer(x, y, 0);
      event('move', x, y);
      return after(desktop);
    }
    case 'left_click':
    case 'right_click':
    case 'middle_click':
    case 'double_click':
    case 'triple_click': {
      const [x, y] = action.coordinate ? point(desktop, action.coordinate) : [at().x, at().y];
      const button = action.action === 'right_click' ? BUTTON.right : action.action === 'middle_click' ? BUTTON.middle : BUTTON.left;
      const times = action.action === 'double_click' ? 2 : action.action === 'triple_click' ? 3 : 1;
      desktop.pointer(x, y, 0);
      for (let i = 0; i < times; i++) {
        desktop.pointer(x, y, button);
        desktop.pointer(x, y, 0);
        if (i + 1 < times) await sleep(40, signal);
      }
      event(times > 1 ? action.action : action.action === 'left_click' ? 'click' : action.action, x, y);
      return after(desktop);
    }
    case 'left_click_drag': {
      const [sx, sy] = point(desktop, action.start_coordinate);
      const [x, y] = point(desktop, action.coordinate);
      desktop.pointer(sx, sy, 0);
      desktop.pointer(sx, sy, BUTTON.left);
      event('drag', sx, sy);
      const steps = 10;
      for (let i = 1; i <= steps; i++) {
        await sleep(15, signal);
        desktop.pointer(sx + ((x - sx) * i) / steps, sy + ((y - sy) * i) / steps, BUTTON.left);
      }
      desktop.pointer(x, y, 0);
      event('drag', x, y);
      return after(desktop);
    }
    case 'type': {
      if (typeof action.text !== 'string' || !action.text) throw new ActionError('type needs text');
      if (action.text.length > MAX_TYPE) throw new ActionError(`type takes at most ${MAX_TYPE} characters at once`);
      const c = at();
      event('type', c.x, c.y);
      // In pieces, so that a stop request is honoured within one piece.
      const chars = [...action.text];
      for (let i = 0; i < chars.length; i += 50) {
        signal?.throwIfAborted();
        await desktop.typeText(chars.slice(i, i + 50).join(''));
      }
      return after(desktop);
    }
    case 'key': {
      let chords: number[][];
      try {
        chords = parseKeys(String(action.text ?? ''));
      } catch (err) {
        throw new ActionError((err as Error).message);
      }
      const c = at();
      event('key', c.x, c.y);
      for (const chord of chords) {
        for (const k of chord) desktop.key(k, true);
        for (const k of [...chord].reverse()) desktop.key(k, false);
      }
      return after(desktop);
    }
    case 'scroll': {
      const [x, y] = action.coordinate ? point(desktop, action.coordinate) : [at().x, at().y];
      const wheel = WHEEL[action.scroll_direction];
      if (!wheel) throw new ActionError('scroll_direction must be up, down, left or right');
      const amount = Math.min(MAX_SCROLL, Math.max(0, Math.round(Number(action.scroll_amount) || 0)));
      desktop.pointer(x, y, 0);
      for (let i = 0; i < amount; i++) {
        desktop.pointer(x, y, wheel);
        desktop.pointer(x, y, 0);
      }
      event('scroll', x, y);
      return after(desktop);
    }
    case 'wait': {
      const seconds = Math.min(MAX_WAIT_S, Math.max(0, Number(action.duration) || 0));
      await sleep(seconds * 1000, signal);
      return { screenshot: await shot(desktop) };
    }
    default:
      throw new ActionError(`Unknown action "${(action as { action?: unknown }).action}"`);
  }
};

/** Waits for the screen to settle, then takes the screenshot the model sees next. */
async function after(desktop: Desktop): Promise<ActionResult> {
  return { screenshot: await shot(desktop) };
}

async function shot(desktop: Desktop, afterInput = true): Promise<Buffer> {
  await desktop.settle?.(150, 1500, afterInput);
  return desktop.screenshot();
}

function point(desktop: Desktop, coordinate: unknown): [number, number] {
  if (!Array.isArray(coordinate) || coordinate.length !== 2 || !coordinate.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new ActionError('coordinate must be [x, y] in screen pixels');
  }
  const [x, y] = coordinate.map(Math.round);
  if (x < 0 || y < 0 || x >= desktop.width || y >= desktop.height) {
    throw new ActionError(`Coordinates (${x}, ${y}) are outside the ${desktop.width}x${desktop.height} screen`);
  }
  return [x, y];
}

function frac(v: number, size: number): number {
  return size > 1 ? Math.min(1, Math.max(0, v / (size - 1))) : 0;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export type { ComputerAction };
