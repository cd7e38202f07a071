// The computer tool as a plain JSON-Schema tool, for providers without Anthropic's built-in
// computer-use type (OpenAI-compatible servers). Same actions and argument names as §2.4.
import type { ToolDefinition } from './types.ts';

export const COMPUTER_ACTIONS = [
  'screenshot', 'cursor_position', 'mouse_move', 'left_click', 'right_click', 'middle_click', 'double_click',
  'triple_click', 'left_click_drag', 'type', 'key', 'scroll', 'wait',
] as const;

export function computerFunction(width: number, height: number): ToolDefinition {
  const point = { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 };
  return {
    name: 'computer',
    description:
      `Use the mouse and keyboard on a ${width}x${height} Linux desktop and take screenshots. ` +
      'Coordinates are [x, y] pixels from the top-left corner. key takes xdotool names such as "Return" or "ctrl+l". ' +
      'Every action that changes the screen returns a fresh screenshot.',
    input_schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...COMPUTER_ACTIONS] },
        coordinate: { ...point, description: 'Target [x, y] for clicks, mouse_move, scroll and the end of a drag' },
        start_coordinate: { ...point, description: 'Start [x, y] of left_click_drag' },
        text: { type: 'string', description: 'Text for type; key combination for key' },
        scroll_direction: { type: 'string', enum: ['up', 'down', 'left', 'right'] },
        scroll_amount: { type: 'integer', minimum: 0 },
        duration: { type: 'number', description: 'Seconds, for wait' },
      },
      required: ['action'],
    },
  };
}
