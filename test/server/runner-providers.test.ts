import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAnthropic } from '../../server/models/anthropic.ts';
import { createOpenAI } from '../../server/models/openai.ts';
import { ModelError, type ModelProvider } from '../../server/models/types.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { call, newAgent, newUser } from './helpers.ts';
import { swapRunner, waitFor } from './runner-helpers.ts';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: any };
type Reply = { status?: number; headers?: Record<string, string>; body: unknown };

/** A vendor API stand-in on port 0: answers from a script (the last reply repeats) and records requests. */
async function vendor(replies: (Reply | ((seen: Seen) => Reply))[]) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null };
      seen.push(s);
      const next = replies[Math.min(seen.length - 1, replies.length - 1)];
      const r = typeof next === 'function' ? next(s) : next;
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const anthropicMessage = (content: unknown[], stop = 'end_turn', usage: Record<string, number> = {}) => ({
  body: { id: 'msg_x', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: stop, stop_sequence: null,
    usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 5000, ...usage } },
});
const anthropicError = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  ({ status, headers, body: { type: 'error', error: { type, message } } });

const waits: number[] = [];
const noWait = { sleep: async (ms: number) => void waits.push(ms), attempts: 3 };

let runner: Runner | undefined;
async function agentOn(provider: ModelProvider) {
  await runner?.stop();
  runner = await swapRunner({ provider });
  const user = await newUser('vendor');
  const agent = await newAgent(user.id);
  const put = (path: string, body: unknown) => call(`/api/agents/${agent.id}/${path}`, { method: 'PUT', token: user.token, body });
  await put('system-prompt', { system_prompt: 'You file invoices.' });
  await put('instructions', { instructions: 'Always be brief.' });
  await put('notes', { notes: '- the printer is broken' });
  const run = async (text: string) => {
    const t = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: text } })).body;
    await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run_all' } });
    return waitFor(async () => {
      const row = (await call(`/api/threads/${t.id}`, { token: user.token })).body;
      return !row.thread_running && (row.schedule_sequence === null || row.error_message) ? row : null;
    }, 5000, 'the run');
  };
  const traces = async (threadId: number) => (await call(`/api/llm_traces/thread/${threadId}?verbose=true`, { token: user.token })).body.traces;
  return { user, agent, run, traces };
}

// ---

const anthropic = suite('runner with the Anthropic wire format');

anthropic.after(async () => {
  await runner?.stop();
});

anthropic('a computer-use run: headers, tools, system prompt, tool results with screenshots, cost from the price table', async () => {
  const api = await vendor([
    anthropicMessage([
      { type: 'thinking', thinking: 'I should look.', signature: 'sig-1' },
      { type: 'text', text: 'Taking a look.' },
      { type: 'tool_use', id: 'toolu_01', name: 'computer', input: { action: 'screenshot' } },
    ], 'tool_use'),
    anthropicMessage([{ type: 'text', text: 'All quiet on the desktop.' }]),
  ]);
  const s = await agentOn(createAnthropic({ apiKey: 'sk-test', baseUrl: api.url, model: 'claude-sonnet-4-5-20250929', retry: noWait }));
  const row = await s.run('look at the screen');
  await api.close();
  assert.is(row.error_message, '');
  assert.is(api.seen.length, 2, JSON.stringify(api.seen.map((x) => x.body.messages)).slice(0, 3000));
  const [first, second] = api.seen;
  assert.is(first.url, '/v1/messages');
  assert.is(first.headers['x-api-key'], 'sk-test');
  assert.is(first.headers['anthropic-version'], '2023-06-01');
  assert.is(first.headers['anthropic-beta'], 'computer-use-2025-01-24');
  assert.equal(first.body.tools[0], { type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 800 });
  assert.equal(first.body.tools.slice(1).map((t: any) => t.name), ['notes', 'report', 'email', 'sub_agent', 'ask_for_help']);
  const system = first.body.system[0].text;
  for (const part of ['You file invoices.', 'Always be brief.', 'the printer is broken']) assert.ok(system.includes(part), part);
  assert.equal(first.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'look at the screen', cache_control: { type: 'ephemeral' } }] }]);
  // the assistant turn goes back unchanged (signature included), then the result with the screenshot
  assert.equal(second.body.messages[1].content[0], { type: 'thinking', thinking: 'I should look.', signature: 'sig-1' });
  const result = second.body.messages[2].content[0];
  assert.is(result.type, 'tool_result');
  assert.is(result.tool_use_id, 'toolu_01');
  assert.is(result.content[1].type, 'image');
  assert.ok(Buffer.from(result.content[1].source.data, 'base64').subarray(1, 4).toString() === 'PNG');

  const traces = await s.traces(row.id);
  assert.is(traces.length, 2);
  assert.is(traces[0].model, 'claude-sonnet-4-5-20250929');
  assert.is(traces[0].input_tokens, 1000);
  assert.is(traces[0].cache_read_tokens, 5000);
  assert.is(traces[0].output_tokens, 200);
  assert.ok(Math.abs(traces[0].estimated_cost - (1000 * 3 + 200 * 15 + 5000 * 0.3) / 1e6) < 1e-12);
  assert.match(traces[1].request.messages[2].content[0].content[1].source.data, /base64 characters omitted/);
  assert.equal(traces[0].response.content.map((b: any) => b.type), ['thinking', 'text', 'tool_use']);
  assert.is(traces[0].parameters.computer_tool, 'computer_20250124');
});

anthropic('429 with retry-after waits as told, then succeeds', async () => {
  waits.length = 0;
  const api = await vendor([anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }), anthropicMessage([{ type: 'text', text: 'ok' }])]);
  const provider = createAnthropic({ apiKey: 'k', baseUrl: api.url, model: 'claude-haiku-4-5', retry: noWait });
  const result = await provider.complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], computer: null });
  await api.close();
  assert.equal(waits, [7000]);
  assert.is(api.seen.length, 2);
  assert.is(result.parameters.attempts, 2);
  assert.equal(result.response.content, [{ type: 'text', text: 'ok' }]);
});

anthropic('5xx and 529 are retried with backoff; a 400 is not', async () => {
  waits.length = 0;
  const flaky = await vendor([
    anthropicError(500, 'api_error', 'boom'), anthropicError(529, 'overloaded_error', 'busy'), anthropicMessage([{ type: 'text', text: 'finally' }]),
  ]);
  const ok = await createAnthropic({ apiKey: 'k', baseUrl: flaky.url, model: 'claude-haiku-4-5', retry: noWait })
    .complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], computer: null });
  await flaky.close();
  assert.is(waits.length, 2);
  assert.ok(waits[0] >= 500 && waits[0] <= 1000 && waits[1] >= 1000 && waits[1] <= 2000, `backoff grows: ${waits}`);
  assert.is((ok.response.content[0] as any).text, 'finally');

  const bad = await vendor([anthropicError(400, 'invalid_request_error', 'messages: roles must alternate')]);
  try {
    await createAnthropic({ apiKey: 'k', baseUrl: bad.url, model: 'claude-haiku-4-5', retry: noWait })
      .complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], computer: null });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ModelError);
    assert.is((err as Error).message, 'Anthropic API error 400 invalid_request_error: messages: roles must alternate');
    assert.is((err as ModelError).status, 400);
  }
  assert.is(bad.seen.length, 1);
  await bad.close();

  const down = await vendor([anthropicError(529, 'overloaded_error', 'busy')]);
  try {
    await createAnthropic({ apiKey: 'k', baseUrl: down.url, model: 'claude-haiku-4-5', retry: noWait })
      .complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], computer: null });
    assert.unreachable();
  } catch (err) {
    assert.is((err as Error).message, 'Anthropic API is overloaded (529): busy (after 3 attempts)');
  }
  await down.close();
});

anthropic('an error reply ends the run with a readable error_message and a trace of the failed call', async () => {
  const api = await vendor([anthropicError(401, 'authentication_error', 'invalid x-api-key')]);
  const s = await agentOn(createAnthropic({ apiKey: 'wrong', baseUrl: api.url, model: 'claude-sonnet-4-5', retry: noWait }));
  const row = await s.run('hello');
  await api.close();
  assert.is(row.error_message, 'Model error: Anthropic rejected the API key (401 authentication_error): invalid x-api-key');
  const feed = (await call(`/api/messages/agent/${s.agent.id}/latest?limit=1`, { token: s.user.token })).body;
  assert.equal([feed[0].role, feed[0].assistant_data.text], ['error', row.error_message]);
  const [trace] = await s.traces(row.id);
  assert.is(trace.response.status, 401);
  assert.is(trace.request.model, 'claude-sonnet-4-5');
});

anthropic('an unreachable server is a readable error too', async () => {
  const provider = createAnthropic({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9', model: 'claude-haiku-4-5', retry: { ...noWait, attempts: 1 } });
  try {
    await provider.complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], computer: null });
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /^Anthropic API unreachable at http:\/\/127\.0\.0\.1:9\/v1\/messages/);
  }
});

// ---

const openai = suite('runner with the OpenAI-compatible wire format');

openai.after(async () => {
  await runner?.stop();
});

openai('a tool-calling run: functions, role tool results, screenshots as data URLs, usage', async () => {
  const api = await vendor([
    {
      body: {
        id: 'c1', model: 'qwen2.5-vl',
        choices: [{
          index: 0, finish_reason: 'tool_calls',
          message: {
            role: 'assistant', content: null,
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'computer', arguments: '{"action":"left_click","coordinate":[10,20]}' } }],
          },
        }],
        usage: { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930, prompt_tokens_details: { cached_tokens: 600 } },
      },
    },
    {
      body: {
        id: 'c2', model: 'qwen2.5-vl',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Clicked.' } }],
        usage: { prompt_tokens: 1500, completion_tokens: 5 },
      },
    },
  ]);
  const s = await agentOn(createOpenAI({ baseUrl: api.url + '/v1', apiKey: 'ollama', model: 'qwen2.5-vl', retry: noWait }));
  const row = await s.run('click near the top');
  await api.close();
  assert.is(row.error_message, '');
  const [first, second] = api.seen;
  assert.is(first.url, '/v1/chat/completions');
  assert.is(first.headers.authorization, 'Bearer ollama');
  assert.equal(first.body.tools.map((t: any) => t.function.name), ['computer', 'notes', 'report', 'email', 'sub_agent', 'ask_for_help']);
  assert.is(first.body.messages[0].role, 'system');
  assert.equal(second.body.messages.slice(2).map((m: any) => m.role), ['assistant', 'tool', 'user']);
  assert.is(second.body.messages[3].tool_call_id, 'call_a');
  assert.match(second.body.messages[4].content[0].image_url.url, /^data:image\/png;base64,iVBOR/);
  const traces = await s.traces(row.id);
  assert.equal(traces.map((t: any) => [t.input_tokens, t.cache_read_tokens, t.output_tokens, t.estimated_cost]), [[300, 600, 30, 0], [1500, 0, 5, 0]]);
  assert.equal(traces[0].response.content[0], { type: 'tool_use', id: 'call_a', name: 'computer', input: { action: 'left_click', coordinate: [10, 20] } });
});

openai('429 and 500 replies are retried; a lasting 500 ends the run with error_message', async () => {
  waits.length = 0;
  const when = new Date(Date.now() + 3000).toUTCString();
  const api = await vendor([
    { status: 429, headers: { 'retry-after': when }, body: { error: { message: 'Too many requests' } } },
    { status: 500, body: { error: { message: 'CUDA out of memory' } } },
  ]);
  const s = await agentOn(createOpenAI({ baseUrl: api.url, model: 'llama', retry: noWait }));
  const row = await s.run('hi');
  await api.close();
  assert.is(api.seen.length, 3);
  assert.ok(waits[0] > 1000 && waits[0] <= 3000, `retry-after as an HTTP date: ${waits[0]}`);
  assert.is(row.error_message, 'Model error: OpenAI-compatible server error 500: CUDA out of memory (after 3 attempts)');
});

anthropic.run();
openai.run();
