// The one model interface every provider speaks: Anthropic Messages shapes (docs/protocols.md §2)
// for messages, content blocks, tool definitions and usage. Providers translate to and from
// their wire format; the runner and the traces only ever see these shapes.

export type TextBlock = { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } };
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string };
export type RedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
export type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
export type ImageBlock = { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };
export type ToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  is_error?: boolean;
  content: string | (TextBlock | ImageBlock)[];
};

/** What an assistant message may hold (unknown block types are kept, never interpreted). */
export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | { type: string; [k: string]: unknown };
export type UserBlock = TextBlock | ImageBlock | ToolResultBlock;

export type Message =
  | { role: 'user'; content: string | UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] };

/** A custom tool (JSON Schema input), as in the Messages API `tools` list. */
export type ToolDefinition = { name: string; description: string; input_schema: Record<string, unknown> };

export type Usage = {
  /** Uncached prompt tokens (Anthropic's input_tokens; prompt minus cached for OpenAI). */
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  /** Prompt tokens written to the cache (5-minute and 1-hour writes together). */
  cache_write_tokens: number;
  cache_write_1h_tokens?: number;
};

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal' | string;

export type ModelResponse = {
  id: string;
  model: string;
  role: 'assistant';
  content: AssistantBlock[];
  stop_reason: StopReason | null;
  usage: Usage;
};

export type ModelRequest = {
  system: string;
  messages: Message[];
  /** Custom tools; the computer tool is declared separately because its wire form differs. */
  tools: ToolDefinition[];
  /** The desktop's size when the computer tool is offered, else null. */
  computer: { width: number; height: number } | null;
  maxTokens?: number;
};

/** One finished call: the normalised response plus what the trace stores. */
export type ModelResult = {
  response: ModelResponse;
  /** The wire body as sent, images elided (stored as the trace's request). */
  request: unknown;
  /** What the trace stores as the response: the wire response when it already has our shape. */
  traceResponse?: unknown;
  /** Settings of the call (model, max_tokens, thinking, tool names …): the trace's parameters. */
  parameters: Record<string, unknown>;
  /** USD. */
  cost: number;
  latencyMs: number;
};

/** Claude's context window; OpenAI-compatible servers say theirs through OPENAI_CONTEXT_TOKENS. */
export const DEFAULT_CONTEXT_TOKENS = 200_000;

export type ModelProvider = {
  /** 'offline' | 'anthropic' | 'openai' */
  readonly name: string;
  readonly model: string;
  /** True for the built-in deterministic planner: the UI labels it. */
  readonly offline: boolean;
  /** The model's context window in tokens. @default DEFAULT_CONTEXT_TOKENS */
  readonly contextTokens?: number;
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResult>;
  /** What a call may cost at most (USD): its prompt as estimated and a full answer; none for free models. */
  estimate?(request: ModelRequest): number;
};

/** A failed model call, with a message fit for the thread's error box. */
export class ModelError extends Error {
  readonly status: number | null;
  readonly provider: string;
  /** For the trace of the failed call. */
  readonly request: unknown;
  readonly response: unknown;
  readonly parameters: Record<string, unknown>;
  readonly latencyMs: number;
  constructor(message: string, details: {
    provider: string; status?: number | null; request?: unknown; response?: unknown;
    parameters?: Record<string, unknown>; latencyMs?: number; cause?: unknown;
  }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ModelError';
    this.provider = details.provider;
    this.status = details.status ?? null;
    this.request = details.request ?? null;
    this.response = details.response ?? null;
    this.parameters = details.parameters ?? {};
    this.latencyMs = details.latencyMs ?? 0;
  }
}

export const isAbort = (err: unknown): boolean =>
  err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
