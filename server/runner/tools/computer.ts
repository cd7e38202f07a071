// The computer tool: validates the model's action (§2.4) and performs it on the agent's desktop
// through the desktop module, which also pushes the action event (cursor x, y as fractions).
import type { ComputerAction } from '../../desktop/index.ts';
import { short, ToolInputError, type Tool, type ToolContext } from './types.ts';

const CLICKS = ['left_click', 'right_click', 'middle_click', 'double_click', 'triple_click'] as const;
const DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
const MAX_WAIT_SECONDS = 60;

export const computerTool: Tool = {
  name: 'computer',
  definition: null,
  async run(input, ctx) {
    if (!ctx.computer) throw new ToolInputError('No desktop is available to this agent');
    const action = toAction(input, ctx.computer.width, ctx.computer.height);
    const desktop = await ctx.computer.acquire();
    try {
      const result = await ctx.computer.perform(desktop, action, { publish: (topic, payload) => ctx.bus.publish(topic, payload), signal: ctx.signal });
      return { text: result.text ?? doneText(action), image: result.screenshot };
    } catch (err) {
      // The desktop module's ActionError is about the input (unknown key name …): the model can fix it.
      if ((err as Error)?.name === 'ActionError') throw new ToolInputError((err as Error).message);
      throw err;
    }
  },
  describe: (input) => `computer: ${describeAction(input)}`,
};

export function describeAction(input: Record<string, unknown>): string {
  const a = String(input.action ?? '?');
  const at = (v: unknown) => (Array.isArray(v) ? ` at ${v.join(',')}` : '');
  switch (a) {
    case 'type': return `type "${short(String(input.text ?? ''), 40)}"`;
    case 'key': return `key ${input.text}`;
    case 'left_click_drag':
      return `drag from ${(input.start_coordinate as unknown[] | undefined)?.join(',')} to ${(input.coordinate as unknown[] | undefined)?.join(',')}`;
    case 'scroll': return `scroll ${input.scroll_direction} ${input.scroll_amount ?? ''}${at(input.coordinate)}`.replace(/\s+/g, ' ');
    case 'wait': return `wait ${input.duration ?? 1} s`;
    default: return `${a}${at(input.coordinate)}`;
  }
}

function doneText(action: ComputerAction): string {
  return action.action === 'screenshot' ? 'Screenshot taken.' : `Done: ${describeAction(action as Record<string, unknown>)}.`;
}

/** The model's input as a ComputerAction, or a ToolInputError that says what is wrong. */
export function toAction(input: Record<string, unknown>, width: number, height: number): ComputerAction {
  const point = (name: string, required: boolean): [number, number] | undefined => {
    const v = input[name];
    if (v === undefined || v === null) {
      if (required) throw new ToolInputError(`${name} is required for ${input.action}`);
      return undefined;
    }
    if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => typeof n === 'number' && Number.isFinite(n))) {
      throw new ToolInputError(`${name} must be [x, y] numbers`);
    }
    const [x, y] = v.map((n) => Math.round(n));
    if (x < 0 || y < 0 || x >= width || y >= height) throw new ToolInputError(`${name} [${x}, ${y}] is outside the ${width}x${height} screen`);
    return [x, y];
  };
  const text = (): string => {
    if (typeof input.text !== 'string' || !input.text) throw new ToolInputError(`text is required for ${input.action}`);
    if (input.text.length > 10_000) throw new ToolInputError('text is longer than 10000 characters');
    return input.text;
  };
  const action = input.action;
  switch (action) {
    case 'screenshot':
    case 'cursor_position':
      return { action };
    case 'mouse_move':
      return { action, coordinate: point('coordinate', true)! };
    case 'left_click_drag':
      return { action, start_coordinate: point('start_coordinate', true)!, coordinate: point('coordinate', true)! };
    case 'type':
      return { action, text: text() };
    case 'key':
      return { action, text: text() };
    case 'scroll': {
      const direction = input.scroll_direction as (typeof DIRECTIONS)[number];
      if (!DIRECTIONS.includes(direction)) throw new ToolInputError('scroll_direction must be up, down, left or right');
      const amount = input.scroll_amount === undefined ? 3 : Number(input.scroll_amount);
      if (!Number.isInteger(amount) || amount < 0 || amount > 100) throw new ToolInputError('scroll_amount must be a whole number from 0 to 100');
      const coordinate = point('coordinate', false);
      return { action, scroll_direction: direction, scroll_amount: amount, ...(coordinate ? { coordinate } : {}) };
    }
    case 'wait': {
      const duration = input.duration === undefined ? 1 : Number(input.duration);
      if (!Number.isFinite(duration) || duration < 0 || duration > MAX_WAIT_SECONDS) {
        throw new ToolInputError(`duration must be 0 to ${MAX_WAIT_SECONDS} seconds`);
      }
      return { action, duration };
    }
    default:
      if (CLICKS.includes(action as (typeof CLICKS)[number])) {
        const coordinate = point('coordinate', false);
        return { action: action as (typeof CLICKS)[number], ...(coordinate ? { coordinate } : {}) };
      }
      throw new ToolInputError(`Unknown computer action "${String(action)}"`);
  }
}

export type { ToolContext };
