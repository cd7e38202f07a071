// Anthropic Messages API over fetch (docs/protocols.md §2): the computer-use tool plus our custom
// tools, the system prompt as a cached block, cache breakpoints on the last user turns, optional
// extended thinking, retries on 429/5xx. The response already is our shape; we only normalise usage.
import { costOf, type Price } from './prices.ts';
import { elideImages, estimateCallCost } from './estimate.ts';
import { postJson, type RetryOptions } from './http.ts';
import { ModelError, type AssistantBlock, type Message, type ModelProvider, type ModelRequest, type ModelResult, type Usage, type UserBlock } from './types.ts';

export type AnthropicOptions = {
  apiKey: string;
  /** @default 'https://api.anthropic.com' */
  baseUrl?: string;
  model: string;
  /** @default 4096 */
  maxTokens?: number;
  /** 'off', 'adaptive' (newer models) or a manual budget in tokens (≥ 1024). @default 'off' */
  thinking?: 'off' | 'adaptive' | number;
  /** Override the computer tool type and its beta flag (new models need newer versions). */
  computerTool?: string;
  betas?: string[];
  retry?: RetryOptions;
  /** The price table the cost of a call comes from. @default PRICES */
  prices?: readonly Price[];
};

const VERSION = '2023-06-01';
const CACHED_USER_TURNS = 3; // + the system block = the API's limit of 4 breakpoints

/** The computer tool version and beta flag a model accepts (§2.1 table). */
export function computerToolFor(model: string): { type: string; beta: string } {
  const id = model.toLowerCase();
  const v = (type: string) => ({ type, beta: betaOf(type) });
  // Opus/Sonnet 5.5 refuse computer_20251124; the newer name is unverified (§2.1), so configurable.
  if (/(opus|sonnet)-5-5/.test(id)) return v('computer_20260701');
  if (/opus-4-[5-9]|opus-5|sonnet-4-6|sonnet-5|haiku-5|fable/.test(id)) return v('computer_20251124');
  if (/3-5-sonnet|sonnet-3-5/.test(id)) return v('computer_20241022');
  return v('computer_20250124');
}

export function createAnthropic(options: AnthropicOptions): ModelProvider {
  const base = (options.baseUrl || 'https://api.anthropic.com').replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${base}/v1/messages`;
  return {
    name: 'anthropic',
    model: options.model,
    offline: false,
    estimate: (request) => estimateCallCost(options.model, request, request.maxTokens ?? options.maxTokens ?? 4096, options.prices),
    async complete(request, signal) {
      const { body, headers, parameters } = buildAnthropicRequest(options, request);
      const started = performance.now();
      try {
        const res = await postJson('Anthropic', url, { ...headers, 'x-api-key': options.apiKey }, body, signal, options.retry, describeAnthropicError);
        const response = parseAnthropicResponse(res.body);
        const latencyMs = performance.now() - started;
        return {
          response, request: elideImages(body), traceResponse: res.body, parameters: { ...parameters, attempts: res.attempts },
          cost: costOf(response.model || options.model, response.usage, new Date(), options.prices), latencyMs,
        } satisfies ModelResult;
      } catch (err) {
        if (!(err instanceof ModelError)) throw err;
        throw new ModelError(err.message, {
          ...err, request: elideImages(body), parameters, latencyMs: performance.now() - started, response: err.response, cause: err,
        });
      }
    },
  };
}

export function buildAnthropicRequest(options: AnthropicOptions, request: ModelRequest) {
  const thinking = options.thinking ?? 'off';
  let maxTokens = request.maxTokens ?? options.maxTokens ?? 4096;
  if (typeof thinking === 'number') maxTokens = Math.max(maxTokens, thinking + 1024);
  const tool = request.computer ? computerToolFor(options.model) : null;
  const toolType = options.computerTool ?? tool?.type;
  const tools: Record<string, unknown>[] = [];
  if (request.computer && toolType) {
    tools.push({ type: toolType, name: 'computer', display_width_px: request.computer.width, display_height_px: request.computer.height });
  }
  tools.push(...request.tools);
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: maxTokens,
    system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
    messages: withCacheBreakpoints(request.messages),
    tools,
  };
  if (typeof thinking === 'number') body.thinking = { type: 'enabled', budget_tokens: thinking };
  else if (thinking === 'adaptive') body.thinking = { type: 'adaptive' };
  const betas = options.betas ?? (request.computer && tool ? [options.computerTool ? betaOf(options.computerTool) : tool.beta] : []);
  const headers: Record<string, string> = { 'anthropic-version': VERSION };
  if (betas.length) headers['anthropic-beta'] = betas.join(',');
  const parameters = {
    provider: 'anthropic', model: options.model, max_tokens: maxTokens, thinking: body.thinking ?? null,
    computer_tool: request.computer ? toolType : null, betas, tools: tools.map((t) => t.name),
    display: request.computer, prompt_caching: true,
  };
  return { body, headers, parameters };
}

const betaOf = (toolType: string) => {
  const m = /^computer_(\d{4})(\d{2})(\d{2})$/.exec(toolType);
  return m ? `computer-use-${m[1]}-${m[2]}-${m[3]}` : toolType;
};

/** Marks the last block of the last few user turns as cache breakpoints (as the reference loop does). */
function withCacheBreakpoints(messages: Message[]): Message[] {
  let left = CACHED_USER_TURNS;
  const out = messages.map((m) => m);
  for (let i = out.length - 1; i >= 0 && left > 0; i--) {
    const m = out[i];
    if (m.role !== 'user') continue;
    const blocks: UserBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map((b) => ({ ...b }));
    if (!blocks.length) continue;
    const last = blocks.length - 1;
    blocks[last] = { ...blocks[last], cache_control: { type: 'ephemeral' } } as UserBlock;
    out[i] = { role: 'user', content: blocks };
    left--;
  }
  return out;
}

function describeAnthropicError(status: number, body: any): string {
  const type = body?.error?.type;
  const message = body?.error?.message ?? (typeof body === 'string' && body ? body.slice(0, 300) : '');
  if (status === 401) return `Anthropic rejected the API key (401${type ? ` ${type}` : ''})${message ? `: ${message}` : ''}`;
  if (status === 429) return `Anthropic rate limit reached (429)${message ? `: ${message}` : ''}`;
  if (status === 529) return `Anthropic API is overloaded (529)${message ? `: ${message}` : ''}`;
  return `Anthropic API error ${status}${type ? ` ${type}` : ''}${message ? `: ${message}` : ''}`;
}

/** Validates the response enough to rely on it; unknown block types and stop reasons pass through. */
export function parseAnthropicResponse(body: any) {
  if (!body || typeof body !== 'object' || !Array.isArray(body.content)) {
    throw new ModelError('Anthropic API returned an unreadable response (no content list)', { provider: 'anthropic', response: body });
  }
  const u = body.usage ?? {};
  const cacheWrite = num(u.cache_creation_input_tokens);
  const usage: Usage = {
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    cache_read_tokens: num(u.cache_read_input_tokens),
    cache_write_tokens: cacheWrite,
    cache_write_1h_tokens: num(u.cache_creation?.ephemeral_1h_input_tokens),
  };
  const content = (body.content as any[]).filter((b) => b && typeof b.type === 'string').map((b): AssistantBlock => {
    if (b.type === 'tool_use') {
      return { type: 'tool_use', id: String(b.id), name: String(b.name), input: b.input && typeof b.input === 'object' ? b.input : {} };
    }
    if (b.type === 'text') return { type: 'text', text: String(b.text ?? '') };
    if (b.type === 'thinking') return { type: 'thinking', thinking: String(b.thinking ?? ''), ...(b.signature ? { signature: b.signature } : {}) };
    return b;
  });
  return {
    id: String(body.id ?? ''), model: String(body.model ?? ''), role: 'assistant' as const, content,
    stop_reason: body.stop_reason ?? null, usage,
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
