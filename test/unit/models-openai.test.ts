import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildOpenAIRequest, parseOpenAIResponse, toChatMessages } from '../../server/models/openai.ts';
import { ModelError, type Message } from '../../server/models/types.ts';

const conversation: Message[] = [
  { role: 'user', content: 'take a screenshot' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'x' }, { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'call_1', name: 'computer', input: { action: 'screenshot' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result', tool_use_id: 'call_1',
        content: [
          { type: 'text', text: 'Screenshot taken.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
      { type: 'text', text: 'and then?' },
    ],
  },
];

// ---

const build = suite('openai: request building');

build('tool calls become tool_calls with JSON arguments; results become role tool, images a following user message', () => {
  const out = toChatMessages(conversation, true);
  assert.equal(out[0], { role: 'user', content: 'take a screenshot' });
  assert.equal(out[1], {
    role: 'assistant', content: 'Looking.',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'computer', arguments: '{"action":"screenshot"}' } }],
  });
  assert.equal(out[2], { role: 'tool', tool_call_id: 'call_1', content: 'Screenshot taken.' });
  assert.equal(out[3], {
    role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }, { type: 'text', text: 'and then?' }],
  });
});

build('text-only models get a note instead of the image', () => {
  const out = toChatMessages(conversation, false);
  assert.equal(out[3], { role: 'user', content: '[screenshot omitted: this model takes no images]\nand then?' });
});

build('the body has the system message, function tools (computer first) and tool_choice auto', () => {
  const { body } = buildOpenAIRequest({ model: 'qwen2.5-vl' }, {
    system: 'Be brief.', messages: conversation, tools: [{ name: 'notes', description: 'n', input_schema: { type: 'object' } }],
    computer: { width: 1024, height: 768 },
  });
  assert.equal((body.messages as any[])[0], { role: 'system', content: 'Be brief.' });
  const tools = body.tools as any[];
  assert.equal(tools.map((t) => t.function.name), ['computer', 'notes']);
  assert.is(tools[0].type, 'function');
  assert.match(tools[0].function.description, /1024x768/);
  assert.is(body.tool_choice, 'auto');
});

// ---

const parse = suite('openai: response parsing');

parse('tool_calls become tool_use blocks; arguments are parsed defensively', () => {
  const r = parseOpenAIResponse({
    id: 'chatcmpl-1', model: 'qwen',
    choices: [{ finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Ok.', reasoning_content: 'thinking…', tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'computer', arguments: '{"action":"key","text":"Return"}' } },
      { id: 'c2', type: 'function', function: { name: 'notes', arguments: '{not json' } },
      { type: 'function', function: { name: 'computer', arguments: { action: 'screenshot' } } },
    ] } }],
    usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 800 } },
  }, 'fallback');
  assert.equal(r.content, [
    { type: 'thinking', thinking: 'thinking…' },
    { type: 'text', text: 'Ok.' },
    { type: 'tool_use', id: 'c1', name: 'computer', input: { action: 'key', text: 'Return' } },
    { type: 'tool_use', id: 'c2', name: 'notes', input: { invalid_arguments: '{not json' } },
    { type: 'tool_use', id: 'call_2', name: 'computer', input: { action: 'screenshot' } },
  ]);
  assert.is(r.stop_reason, 'tool_use');
  assert.equal(r.usage, { input_tokens: 200, output_tokens: 50, cache_read_tokens: 800, cache_write_tokens: 0 });
});

parse('finish reasons map to stop reasons; Ollama "stop" with tool calls is tool_use', () => {
  const msg = (finish: string, calls = false) => parseOpenAIResponse({
    choices: [{
      finish_reason: finish,
      message: { content: 'x', ...(calls ? { tool_calls: [{ id: 'a', function: { name: 'n', arguments: '{}' } }] } : {}) },
    }],
  }, 'm');
  assert.is(msg('stop').stop_reason, 'end_turn');
  assert.is(msg('length').stop_reason, 'max_tokens');
  assert.is(msg('stop', true).stop_reason, 'tool_use');
  assert.is(msg('weird').stop_reason, 'weird');
  assert.is(msg('stop').model, 'm');
});

parse('a reply without choices is a ModelError', () => {
  try {
    parseOpenAIResponse({ object: 'error' }, 'm');
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ModelError);
  }
});

build.run();
parse.run();
