// The conversation a run sends to the model: the system prompt (ours + the agent's system
// prompt, instructions and notes.md), the thread's steps replayed as messages (the model's own
// content blocks, thinking signatures included, and the stored tool results), only the most
// recent screenshots, and no more of the oldest turns than the model's context window holds.
import type { AssistantBlock, Message, ToolResultBlock, UserBlock } from '../models/types.ts';
import { estimateTokens } from '../models/estimate.ts';
import { INTERRUPTED_PREFIX, OLDER_SCREENSHOT } from '../models/offline.ts';

export type StoredToolCall = {
  id: string;
  name: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  input?: unknown;
  output?: string;
  is_error?: boolean;
  /** When it ended, ms since the epoch. */
  done_at?: number;
  /** Calls made by a sub-agent, listed under the parent's step; never replayed. */
  sub?: boolean;
};

export type StoredStep = {
  sequence: number;
  user_text: string;
  user_files: string[];
  reasoning_text: string;
  assistant_text: string;
  tool_calls: StoredToolCall[];
  model_content: AssistantBlock[] | null;
};

export const INTERRUPTED_RESULT = `${INTERRUPTED_PREFIX}: the run stopped before this action finished.`;

export function systemPrompt(
  agent: { name: string; system_prompt: string; instructions: string; notes: string },
  desktop: { width: number; height: number } | null,
  now = new Date(),
): string {
  const parts = [
    `You are ${agent.name}, an AI agent working for your user in Agent Workspace. Today is ${now.toISOString().slice(0, 10)} (UTC).`,
    desktop
      ? `You have your own Linux desktop (X11, ${desktop.width}x${desktop.height} pixels) with a terminal and a web browser, ` +
        'used through the computer tool. Take a screenshot when you need to see the screen. Files your user attaches are in ~/Desktop.'
      : 'No desktop is available to you right now; work with your other tools and say so if a task needs the desktop.',
    'Use the notes tool to keep durable notes, the report tool to report results, and the email tool to draft emails ' +
      '(a person approves them before they are sent). When the task is done, answer briefly with what you did.',
  ];
  if (agent.system_prompt.trim()) parts.push(agent.system_prompt.trim());
  if (agent.instructions.trim()) parts.push(`## Instructions\n\n${agent.instructions.trim()}`);
  if (agent.notes.trim()) parts.push(`## notes.md\n\n${agent.notes.trim()}`);
  return parts.join('\n\n');
}

/** The steps as alternating user/assistant messages; `images` go after the user's words of their step. */
export function messagesFromSteps(steps: StoredStep[], images: ReadonlyMap<number, UserBlock[]> = new Map()): Message[] {
  const out: Message[] = [];
  const push = (m: Message) => {
    const last = out[out.length - 1];
    if (last && last.role === m.role) {
      if (m.role === 'user') {
        last.content = [...blocks(last.content as string | UserBlock[]), ...blocks(m.content)];
        // tool results must come first in a user turn
        (last.content as UserBlock[]).sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
      } else (last.content as AssistantBlock[]).push(...(m.content as AssistantBlock[]));
      return;
    }
    out.push(m.role === 'user' ? { role: 'user', content: blocks(m.content) } : { role: 'assistant', content: [...m.content] });
  };
  for (const step of steps) {
    const files = step.user_files ?? [];
    if (step.user_text || files.length) {
      const attached = files.length ? `\n\n(Attached files, also on the desktop in ~/Desktop: ${files.map((f) => f.split('/').pop()).join(', ')})` : '';
      const text = (step.user_text || '') + attached;
      const extra = images.get(step.sequence);
      push({ role: 'user', content: extra?.length ? [{ type: 'text', text }, ...extra] : text });
    }
    const content = step.model_content ?? legacyContent(step);
    if (!content.length) continue;
    push({ role: 'assistant', content });
    const results: ToolResultBlock[] = content
      .filter((b): b is Extract<AssistantBlock, { type: 'tool_use' }> => b.type === 'tool_use')
      .map((use) => {
        const call = step.tool_calls.find((c) => c.id === use.id && !c.sub);
        const finished = call && (call.status === 'done' || call.status === 'failed') && call.output !== undefined;
        return finished
          ? { type: 'tool_result', tool_use_id: use.id, content: call!.output!, ...(call!.is_error || call!.status === 'failed' ? { is_error: true } : {}) }
          : { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_RESULT, is_error: true };
      });
    if (results.length) push({ role: 'user', content: results });
  }
  return out;
}

function legacyContent(step: StoredStep): AssistantBlock[] {
  return step.assistant_text ? [{ type: 'text', text: step.assistant_text }] : [];
}

const blocks = (c: string | UserBlock[]): UserBlock[] => (typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);

/** A copy in which only the newest `keep` images remain; older ones become a short note. */
export function keepRecentImages(messages: Message[], keep = 3): Message[] {
  let seen = 0;
  const out: Message[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user' || typeof m.content === 'string') {
      out.push(m);
      continue;
    }
    const content = [...m.content].reverse().map((b): UserBlock => {
      if (b.type === 'image') return ++seen > keep ? { type: 'text', text: OLDER_SCREENSHOT } : b;
      if (b.type === 'tool_result' && Array.isArray(b.content)) {
        const inner = [...b.content].reverse()
          .map((c) => (c.type === 'image' && ++seen > keep ? { type: 'text' as const, text: OLDER_SCREENSHOT } : c))
          .reverse();
        return { ...b, content: inner };
      }
      return b;
    }).reverse();
    out.push({ role: 'user', content });
  }
  return out.reverse();
}

export const CONTEXT_NOTE = '[Earlier turns were left out to fit the context window; what the user wrote in them follows, if anything]';

/**
 * The messages as they are while they fit `max` tokens (estimated); else a copy cut down to `target`:
 * the first message (the task) stays, older turns go from the front, and the kept part starts at an
 * assistant turn so that every tool result still follows its tool_use. What the user wrote in the turns
 * that go is kept, with a note on the cut. Cutting well below `max` keeps the prompt's prefix (and the
 * model's prompt cache) the same for many turns after.
 */
export function fitContext(messages: Message[], { max, target = max, keepImages }: { max: number; target?: number; keepImages: number }): Message[] {
  // Measured as sent: older screenshots are replaced by a note anyway.
  const sizes = keepRecentImages(messages, keepImages).map((m) => estimateTokens(m.content));
  let rest = sizes.reduce((a, b) => a + b, 0);
  if (rest <= max || messages.length < 4) return messages;
  rest -= sizes[0];
  let cut = -1;
  for (let i = 1; i < messages.length - 1; i++) {
    if (messages[i].role === 'assistant' && i >= 3) {
      cut = i;
      if (sizes[0] + rest <= target) break;
    }
    rest -= sizes[i];
  }
  if (cut < 0) return messages;
  const dropped = messages.slice(1, cut);
  const userTexts = dropped
    .filter((m) => m.role === 'user')
    .flatMap((m) => blocks(m.content as string | UserBlock[]))
    .filter((b): b is Extract<UserBlock, { type: 'text' }> => b.type === 'text' && b.text !== OLDER_SCREENSHOT);
  // After an earlier cut the first message is task, note, kept texts: one note, the texts in order.
  const head = blocks(messages[0].content as string | UserBlock[]);
  const noteAt = head.findIndex((b) => b.type === 'text' && b.text === CONTEXT_NOTE);
  const task = noteAt < 0 ? head : head.slice(0, noteAt);
  const kept = noteAt < 0 ? [] : head.slice(noteAt + 1);
  const first: Message = { role: 'user', content: [...task, { type: 'text', text: CONTEXT_NOTE }, ...kept, ...userTexts] };
  return [first, ...messages.slice(cut)];
}
