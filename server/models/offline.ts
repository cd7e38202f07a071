// The offline model (MODEL_PROVIDER=offline, the default): no network, no AI, deterministic. It
// reads the latest user instruction, plans it with the grammar in offline-planner.ts, and answers
// one tool call per turn until the plan is done, then a summary. Its replies say what it is.
// Traces are real: token counts are estimated from text length; cost is 0 unless OFFLINE_MODEL_PRICE names one.
import { estimateTokens, elideImages } from './estimate.ts';
import { planInstruction, type PlannedCall, type Place } from './offline-planner.ts';
import { listedCredentials } from './offline-sign-in.ts';
import { HANDBACK_PREFIX, HANDBACK_SCREEN_CAPTION } from './handback-words.ts';
import type { AssistantBlock, Message, ModelProvider, ModelRequest, ModelResponse, ToolResultBlock } from './types.ts';

export const OFFLINE_MODEL = 'offline-planner-1';
const LABEL = '(Offline model: a built-in deterministic planner, not an AI.)';
export const INTERRUPTED_PREFIX = 'Interrupted';
/** What an image older than the newest few becomes in a request (runner/history.ts). */
export const OLDER_SCREENSHOT = '[older screenshot removed]';

export type OfflineOptions = {
  /** Where the terminal window sits on the desktop, as fractions of the screen. @default [0.25, 0.2] */
  terminalAt?: [number, number];
  /** USD per million (estimated) input and output tokens; none: the calls cost nothing. */
  price?: { input: number; output: number };
};

export function createOffline(options: OfflineOptions = {}): ModelProvider {
  return {
    name: 'offline',
    model: OFFLINE_MODEL,
    offline: true,
    async complete(request, signal) {
      signal?.throwIfAborted();
      const started = performance.now();
      const response = offlineReply(request, options);
      const wire = {
        model: OFFLINE_MODEL, system: request.system, messages: request.messages, tools: request.tools.map((t) => t.name), computer: request.computer,
      };
      return {
        response,
        request: elideImages(wire),
        parameters: {
          provider: 'offline', model: OFFLINE_MODEL, display: request.computer,
          tools: [...(request.computer ? ['computer'] : []), ...request.tools.map((t) => t.name)], estimated_tokens: true,
        },
        cost: options.price ? (response.usage.input_tokens * options.price.input + response.usage.output_tokens * options.price.output) / 1e6 : 0,
        latencyMs: performance.now() - started,
      };
    },
  };
}

/** `blocks`: the instruction's text blocks apart (a held mail, then the person's reply in the chat, arrive as one message). */
type Progress = { instruction: string; blocks: string[]; done: number; failed: { error: string } | null; results: string[] };

/** A person's hand-back log (and its screenshot's caption) is context, not a new instruction: the plan goes on. */
// Nor is the note an older image became (the hand-back's screenshot, a demonstration's keyframes).
const isHandback = (text: string) => text.startsWith(HANDBACK_PREFIX) || text.startsWith(HANDBACK_SCREEN_CAPTION) || text === OLDER_SCREENSHOT;

/** The latest user text and how far the tool calls after it got. */
export function progressOf(messages: Message[]): Progress {
  let start = -1;
  let instruction = '';
  let blocks: string[] = [];
  for (let i = messages.length - 1; i >= 0 && start < 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const texts = typeof m.content === 'string' ? [m.content] : m.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
    const kept = texts.filter((t) => !isHandback(t) && t.trim());
    if (kept.length) {
      start = i;
      instruction = kept.join('\n').trim();
      blocks = kept.map((t) => t.trim());
    }
  }
  let done = 0;
  let failed: Progress['failed'] = null;
  const results: string[] = [];
  for (const m of messages.slice(start + 1)) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const block of m.content) {
      if (block.type !== 'tool_result') continue;
      const text = resultText(block);
      if (!block.is_error) {
        done++;
        results.push(text);
      } else if (!text.startsWith(INTERRUPTED_PREFIX)) failed = { error: text };
      else failed = null; // an interrupted call is simply tried again
    }
  }
  return { instruction, blocks, done, failed, results };
}

const resultText = (b: ToolResultBlock) =>
  typeof b.content === 'string' ? b.content : b.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');

export function offlineReply(request: ModelRequest, options: OfflineOptions = {}): ModelResponse {
  const place: Place = {
    width: request.computer?.width ?? 1280,
    height: request.computer?.height ?? 800,
    terminal: options.terminalAt ?? [0.25, 0.2],
    credentials: listedCredentials(request.tools.find((t) => t.name === 'fill_credential')?.description ?? ''),
  };
  const progress = progressOf(request.messages);
  // Each block is planned on its own, the newest that plans anything winning: a chat reply ("go ahead") after a mail
  // neither replaces the mail's instruction nor runs on into what that instruction quotes (an e-mail's text).
  const plans = progress.blocks.map((b) => planInstruction(b, place)).reverse();
  const plan = plans.find((p) => p.calls.length) ?? planInstruction(progress.instruction, place);
  const available = new Set([...request.tools.map((t) => t.name), ...(request.computer ? ['computer'] : [])]);
  const usable = plan.calls.filter((c) => available.has(c.name));
  const missing = plan.calls.filter((c) => !available.has(c.name));
  const content: AssistantBlock[] = [];
  let stop: string;

  if (progress.failed) {
    content.push({ type: 'text', text: `I stopped: the last step failed (${progress.failed.error}). ${LABEL}` });
    stop = 'end_turn';
  } else if (progress.done < usable.length) {
    const call = usable[progress.done];
    const n = progress.done + 1;
    content.push({ type: 'thinking', thinking: thinking(usable, n) });
    content.push({ type: 'text', text: /[.?!…]$/.test(call.say) ? call.say : `${call.say}.` });
    content.push({ type: 'tool_use', id: `toolu_offline_${request.messages.length}_${n}`, name: call.name, input: call.input });
    stop = 'tool_use';
  } else {
    content.push({ type: 'text', text: summary(progress, usable, missing, plan.unknown) });
    stop = 'end_turn';
  }
  const usage = {
    input_tokens: estimateTokens([request.system, request.messages, request.tools]),
    output_tokens: estimateTokens(content),
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  return { id: `msg_offline_${request.messages.length}`, model: OFFLINE_MODEL, role: 'assistant', content, stop_reason: stop, usage };
}

/** The whole plan once, before its first step; after that only where the run stands (the chat shows every step). */
function thinking(calls: PlannedCall[], n: number): string {
  if (n > 1) return `Step ${n} of ${calls.length}.`;
  const plan = calls.map((c, i) => `${i + 1}. ${c.say}`).join('\n');
  return `Plan (offline planner):\n${plan}\nNow step 1 of ${calls.length}.`;
}

function summary(progress: Progress, usable: PlannedCall[], missing: PlannedCall[], unknown: string[]): string {
  const lines: string[] = [];
  if (usable.length) {
    lines.push(`Done: ${usable.map((c) => c.say.charAt(0).toLowerCase() + c.say.slice(1)).join('; ')}.`);
    const sub = usable.findIndex((c) => c.name === 'sub_agent' || (c.name === 'notes' && c.input.action === 'read'));
    if (sub >= 0 && progress.results[sub]) lines.push(`Result: ${progress.results[sub]}`);
  }
  for (const c of missing) {
    lines.push(c.name === 'computer'
      ? `I could not do "${c.say}": no desktop is available to this agent.`
      : `I could not do "${c.say}": the ${c.name} tool is not available here.`);
  }
  if (unknown.length) lines.push(`I did not understand: ${unknown.map((u) => `"${u}"`).join(', ')}.`);
  if (!usable.length && !missing.length) {
    const instruction = progress.instruction.length > 200 ? progress.instruction.slice(0, 199) + '…' : progress.instruction;
    const said = progress.instruction ? `You said: "${instruction}". ` : '';
    lines.push(
      `${said}I can only follow simple instructions such as "open a terminal and type hello", "press ctrl+l", ` +
      '"click at 640,400", "click the top right corner", "scroll down", "take a screenshot", "write a note …", ' +
      '"write a report Title: what was done (80% done)", "draft an email to someone@example.com saying …", "ask a sub-agent to …" ' +
      'and \'ask me for help with "…"\'. ' +
      'Choose a real model with MODEL_PROVIDER=anthropic or openai for anything else.');
  }
  lines.push(LABEL);
  return lines.join('\n\n');
}
