// OpenAI-compatible chat completions (vLLM, Ollama, …; docs/protocols.md §2.7) behind the
// Anthropic-shaped interface: our messages become chat messages with tool_calls and role 'tool'
// results (screenshots follow in a user message as data URLs), and the reply becomes content blocks.
import { computerFunction } from './computer-schema.ts';
import { costOf, type Price } from './prices.ts';
import { elideImages, estimateCallCost } from './estimate.ts';
import { postJson, type RetryOptions } from './http.ts';
import { ModelError, type AssistantBlock, type Message, type ModelProvider, type ModelRequest, type ModelResponse, type ToolDefinition } from './types.ts';

export type OpenAIOptions = {
  /** Server root, with or without /v1. @default 'http://localhost:11434' (Ollama) */
  baseUrl?: string;
  /** Sent as a Bearer token; Ollama needs some value but ignores it. */
  apiKey?: string;
  model: string;
  /** @default 4096 */
  maxTokens?: number;
  /** Send screenshots to the model (false for text-only models). @default true */
  images?: boolean;
  /** The served model's context window (local models vary). @default 32768 */
  contextTokens?: number;
  retry?: RetryOptions;
  /** The price table the cost of a call comes from. @default PRICES */
  prices?: readonly Price[];
};

type ChatMessage = Record<string, unknown> & { role: string };

export function createOpenAI(options: OpenAIOptions): ModelProvider {
  const base = (options.baseUrl || 'http://localhost:11434').replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${base}/v1/chat/completions`;
  return {
    name: 'openai',
    model: options.model,
    contextTokens: options.contextTokens ?? 32_768,
    offline: false,
    estimate: (request) => estimateCallCost(options.model, request, request.maxTokens ?? options.maxTokens ?? 4096, options.prices),
    async complete(request, signal) {
      const { body, parameters } = buildOpenAIRequest(options, request);
      const started = performance.now();
      const headers: Record<string, string> = {};
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      try {
        const res = await postJson('OpenAI-compatible', url, headers, body, signal, options.retry, describeOpenAIError);
        const response = parseOpenAIResponse(res.body, options.model);
        return {
          response, request: elideImages(body), traceResponse: { ...response, raw: res.body },
          parameters: { ...parameters, attempts: res.attempts },
          cost: costOf(response.model || options.model, response.usage, new Date(), options.prices), latencyMs: performance.now() - started,
        };
      } catch (err) {
        if (!(err instanceof ModelError)) throw err;
        throw new ModelError(err.message, {
          ...err, request: elideImages(body), parameters, latencyMs: performance.now() - started, response: err.response, cause: err,
        });
      }
    },
  };
}

export function buildOpenAIRequest(options: OpenAIOptions, request: ModelRequest) {
  const tools: ToolDefinition[] = [...(request.computer ? [computerFunction(request.computer.width, request.computer.height)] : []), ...request.tools];
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
    messages: [{ role: 'system', content: request.system }, ...toChatMessages(request.messages, options.images ?? true)],
  };
  if (tools.length) {
    body.tools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
    body.tool_choice = 'auto';
  }
  const parameters = {
    provider: 'openai', model: options.model, max_tokens: body.max_tokens, tools: tools.map((t) => t.name),
    display: request.computer, images: options.images ?? true,
  };
  return { body, parameters };
}

export function toChatMessages(messages: Message[], images: boolean): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = m.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
      const calls = m.content.filter((b) => b.type === 'tool_use') as { id: string; name: string; input: unknown }[];
      const msg: ChatMessage = { role: 'assistant', content: text || null };
      if (calls.length) {
        msg.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } }));
      }
      out.push(msg);
      continue;
    }
    if (typeof m.content === 'string') {
      out.push({ role: 'user', content: m.content });
      continue;
    }
    // Tool results first (they must directly follow the assistant's tool_calls), then one user
    // message with the screenshots they carried and any text of this turn.
    const parts: Record<string, unknown>[] = [];
    const addImage = (data: string, mediaType: string) =>
      parts.push(images
        ? { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } }
        : { type: 'text', text: '[screenshot omitted: this model takes no images]' });
    for (const block of m.content) {
      if (block.type === 'tool_result') {
        const items = typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : block.content;
        const text = items.filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('\n');
        const reply = text || (items.length ? 'See the screenshot below.' : 'Done.');
        out.push({ role: 'tool', tool_call_id: block.tool_use_id, content: (block.is_error ? 'Error: ' : '') + reply });
        for (const i of items) if (i.type === 'image') addImage(i.source.data, i.source.media_type);
      } else if (block.type === 'image') addImage(block.source.data, block.source.media_type);
      else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    }
    if (parts.length) {
      const onlyText = parts.every((p) => p.type === 'text');
      out.push({ role: 'user', content: onlyText ? parts.map((p) => p.text).join('\n') : parts });
    }
  }
  return out;
}

function describeOpenAIError(status: number, body: any): string {
  const message = body?.error?.message ?? body?.message ?? (typeof body?.error === 'string' ? body.error : '') ?? '';
  const text = message || (typeof body === 'string' ? body.slice(0, 300) : '');
  if (status === 429) return `OpenAI-compatible server rate limit reached (429)${text ? `: ${text}` : ''}`;
  return `OpenAI-compatible server error ${status}${text ? `: ${text}` : ''}`;
}

const STOP: Record<string, string> = { tool_calls: 'tool_use', function_call: 'tool_use', stop: 'end_turn', length: 'max_tokens', content_filter: 'refusal' };

export function parseOpenAIResponse(body: any, fallbackModel: string): ModelResponse {
  const choice = body?.choices?.[0];
  const message = choice?.message;
  if (!message || typeof message !== 'object') {
    throw new ModelError('OpenAI-compatible server returned an unreadable response (no choices[0].message)', { provider: 'openai', response: body });
  }
  const content: AssistantBlock[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning.trim()) content.push({ type: 'thinking', thinking: reasoning });
  const text = typeof message.content === 'string'
    ? message.content
    : Array.isArray(message.content) ? message.content.map((p: any) => p?.text ?? '').join('') : '';
  if (text.trim()) content.push({ type: 'text', text });
  const calls: any[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call, index) => {
    const raw = call?.function?.arguments;
    let input: Record<string, unknown>;
    if (raw && typeof raw === 'object') input = raw; // some servers send an object
    else {
      try {
        const parsed = JSON.parse(typeof raw === 'string' && raw.trim() ? raw : '{}');
        input = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed };
      } catch {
        input = { invalid_arguments: String(raw) };
      }
    }
    content.push({ type: 'tool_use', id: String(call?.id || `call_${index}`), name: String(call?.function?.name ?? ''), input });
  });
  const u = body.usage ?? {};
  const prompt = Number(u.prompt_tokens) || 0;
  const cached = Math.min(prompt, Number(u.prompt_tokens_details?.cached_tokens) || 0);
  const finish = String(choice.finish_reason ?? '');
  return {
    id: String(body.id ?? ''),
    model: String(body.model ?? fallbackModel),
    role: 'assistant',
    content,
    // Ollama answers 'stop' even when it calls tools.
    stop_reason: calls.length ? 'tool_use' : (STOP[finish] ?? (finish || null)),
    usage: { input_tokens: prompt - cached, output_tokens: Number(u.completion_tokens) || 0, cache_read_tokens: cached, cache_write_tokens: 0 },
  };
}
