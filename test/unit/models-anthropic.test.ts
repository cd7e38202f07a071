import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildAnthropicRequest, computerToolFor, parseAnthropicResponse } from '../../server/models/anthropic.ts';
import { ModelError, type ModelRequest } from '../../server/models/types.ts';

const base: ModelRequest = {
  system: 'You are Ada.',
  messages: [
    { role: 'user', content: 'open a terminal' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'tool_use', id: 'toolu_1', name: 'computer', input: { action: 'screenshot' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ok' }] }] },
  ],
  tools: [{ name: 'notes', description: 'notes', input_schema: { type: 'object' } }],
  computer: { width: 1280, height: 800 },
};

// ---

const build = suite('anthropic: request building');

build('sends the computer-use tool with the display size, our tools, the beta flag and the version', () => {
  const { body, headers, parameters } = buildAnthropicRequest({ apiKey: 'k', model: 'claude-sonnet-4-5-20250929' }, base);
  assert.equal((body.tools as any[])[0], { type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 800 });
  assert.equal((body.tools as any[])[1], { name: 'notes', description: 'notes', input_schema: { type: 'object' } });
  assert.is(headers['anthropic-version'], '2023-06-01');
  assert.is(headers['anthropic-beta'], 'computer-use-2025-01-24');
  assert.is(body.max_tokens, 4096);
  assert.is(body.thinking, undefined);
  assert.equal(parameters.tools, ['computer', 'notes']);
});

build('caches the system prompt and the last user turns: at most 4 breakpoints', () => {
  const many: ModelRequest = {
    ...base,
    messages: [
      ...base.messages,
      { role: 'assistant', content: [{ type: 'text', text: 'x' }] }, { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'text', text: 'y' }] }, { role: 'user', content: 'b' },
    ],
  };
  const { body } = buildAnthropicRequest({ apiKey: 'k', model: 'claude-haiku-4-5' }, many);
  assert.equal(body.system, [{ type: 'text', text: 'You are Ada.', cache_control: { type: 'ephemeral' } }]);
  const marked = JSON.stringify(body).match(/cache_control/g)!.length;
  assert.is(marked, 4);
  const messages = body.messages as any[];
  assert.equal(messages.at(-1), { role: 'user', content: [{ type: 'text', text: 'b', cache_control: { type: 'ephemeral' } }] });
  assert.is(messages[0].content, 'open a terminal', 'older turns stay as they were');
  assert.equal(messages[1].content[0], { type: 'thinking', thinking: 'plan', signature: 'sig' }, 'thinking blocks go back unchanged');
  assert.is(many.messages.at(-1)!.content, 'b', 'the input is not mutated');
});

build('extended thinking: a manual budget raises max_tokens above it; adaptive for newer models', () => {
  const manual = buildAnthropicRequest({ apiKey: 'k', model: 'claude-sonnet-4-5', thinking: 4096, maxTokens: 2048 }, base).body;
  assert.equal(manual.thinking, { type: 'enabled', budget_tokens: 4096 });
  assert.is(manual.max_tokens, 4096 + 1024);
  const adaptive = buildAnthropicRequest({ apiKey: 'k', model: 'claude-opus-4-7', thinking: 'adaptive' }, base).body;
  assert.equal(adaptive.thinking, { type: 'adaptive' });
});

build('the computer tool version follows the model and can be overridden', () => {
  assert.equal(computerToolFor('claude-opus-4-5-20251101'), { type: 'computer_20251124', beta: 'computer-use-2025-11-24' });
  assert.equal(computerToolFor('claude-sonnet-4-6'), { type: 'computer_20251124', beta: 'computer-use-2025-11-24' });
  assert.equal(computerToolFor('claude-3-5-sonnet-20241022'), { type: 'computer_20241022', beta: 'computer-use-2024-10-22' });
  assert.equal(computerToolFor('claude-opus-4-1'), { type: 'computer_20250124', beta: 'computer-use-2025-01-24' });
  const { body, headers } = buildAnthropicRequest({ apiKey: 'k', model: 'claude-opus-5-5', computerTool: 'computer_20261201' }, base);
  assert.is((body.tools as any[])[0].type, 'computer_20261201');
  assert.is(headers['anthropic-beta'], 'computer-use-2026-12-01');
});

build('without a desktop there is no computer tool and no beta flag', () => {
  const { body, headers } = buildAnthropicRequest({ apiKey: 'k', model: 'claude-sonnet-4-5' }, { ...base, computer: null });
  assert.equal((body.tools as any[]).map((t) => t.name), ['notes']);
  assert.is(headers['anthropic-beta'], undefined);
});

// ---

const parse = suite('anthropic: response parsing');

parse('reads content blocks and usage; keeps unknown block types; cache reads are separate', () => {
  const r = parseAnthropicResponse({
    id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 's' },
      { type: 'redacted_thinking', data: 'xyz' },
      { type: 'text', text: 'Clicking.' },
      { type: 'tool_use', id: 'toolu_9', name: 'computer', input: { action: 'left_click', coordinate: [1, 2] } },
      { type: 'server_tool_use_future', foo: 1 },
    ],
    stop_reason: 'tool_use',
    usage: {
      input_tokens: 12, output_tokens: 34, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 },
    },
  });
  assert.is(r.stop_reason, 'tool_use');
  assert.equal(r.content.map((b) => b.type), ['thinking', 'redacted_thinking', 'text', 'tool_use', 'server_tool_use_future']);
  assert.equal(r.content[0], { type: 'thinking', thinking: 'hmm', signature: 's' });
  assert.equal(r.usage, { input_tokens: 12, output_tokens: 34, cache_read_tokens: 2000, cache_write_tokens: 100, cache_write_1h_tokens: 0 });
});

parse('an unknown stop reason passes through; missing usage counts as zero', () => {
  const r = parseAnthropicResponse({ id: 'm', content: [{ type: 'text', text: 'x' }], stop_reason: 'model_context_window_exceeded' });
  assert.is(r.stop_reason, 'model_context_window_exceeded');
  assert.equal(r.usage, { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0 });
});

parse('a body without a content list is a ModelError', () => {
  try {
    parseAnthropicResponse({ type: 'error' });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ModelError);
    assert.match((err as Error).message, /unreadable response/);
  }
});

build.run();
parse.run();
