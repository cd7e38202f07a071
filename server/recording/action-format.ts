// The words of a demonstration's summary: one line per action ("clicked at 412,230", "typed 'quarterly
// report'", "pressed ctrl+s"), numbered and timed, interleaved with what the person said, inside the
// <video_call_summary> tag the browser waits for. Text only: which keyframes go along is summary.ts's call.
import type { Action } from './action-tracker.ts';

export const SUMMARY_TAG = 'video_call_summary';

/** A stretch of speech, ms from the start of the recording. */
export type Speech = { at: number; text: string };

export type SummaryInput = {
  durationMs: number;
  screen: { width: number; height: number } | null;
  actions: Action[];
  /** Transcribed speech, or null when there is no transcript (then `noTranscript` says why). */
  speech: Speech[] | null;
  noTranscript?: string;
  /** Numbers (1-based) of the actions whose keyframes travel with the summary. */
  keyframesOf?: number[];
};

/** m:ss */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Quoted as typed: single quotes unless the text has one, then JSON's double quotes and escapes. */
function quote(text: string): string {
  return /['\\\p{Cc}]/u.test(text) ? JSON.stringify(text) : `'${text}'`;
}

const at = (x = 0, y = 0) => `${x},${y}`;

export function describeAction(a: Action): string {
  switch (a.kind) {
    case 'click': {
      const times = a.count === 3 ? 'triple-clicked' : a.count === 2 ? 'double-clicked' : 'clicked';
      const which = a.button === 'right' ? 'right-' : a.button === 'middle' ? 'middle-' : '';
      return `${which}${times} at ${at(a.x, a.y)}`;
    }
    case 'drag':
      return `dragged${a.button && a.button !== 'left' ? ` with the ${a.button} button` : ''} from ${at(a.x, a.y)} to ${at(a.toX, a.toY)}`;
    case 'type':
      return `typed ${quote(a.text ?? '')}`;
    case 'key':
      return `pressed ${a.text}`;
    case 'scroll':
      return `scrolled ${a.direction} ${a.amount} at ${at(a.x, a.y)}`;
    case 'drop':
      return `dropped file ${a.text}`;
  }
}

/** Recorded words must not close the tag early (a typed "</video_call_summary>" stays text). */
function defuse(text: string): string {
  return text.replace(/<(\/?)video_call_summary>/gi, '<$1video_call_summary\u200b>');
}

function listNumbers(numbers: number[]): string {
  if (numbers.length === 1) return `action ${numbers[0]}`;
  return `actions ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

export function formatSummary(input: SummaryInput): string {
  const { actions, speech } = input;
  const screen = input.screen ? ` (${input.screen.width}x${input.screen.height} pixels)` : '';
  const lines = [
    `Demonstration recorded on the desktop${screen}, ${clock(input.durationMs)} long.`,
  ];
  type Entry = { at: number; line: string };
  const entries: Entry[] = actions.map((a, i) => ({ at: a.at, line: `${i + 1}. [${clock(a.at)}] ${describeAction(a)}` }));
  for (const s of speech ?? []) {
    if (s.text.trim()) entries.push({ at: s.at, line: `[${clock(s.at)}] said: "${s.text.trim()}"` });
  }
  // Stable: speech starting at the same moment as an action comes after it.
  entries.sort((a, b) => a.at - b.at);
  if (actions.length) {
    lines.push(`What the person did, in order (m:ss from the start; coordinates in screen pixels)${speech?.length ? ', and what they said' : ''}:`, '');
  } else {
    lines.push('The person did nothing on the desktop: no clicks, typing or other input reached it.', '');
  }
  lines.push(...entries.map((e) => e.line));
  if (entries.length) lines.push('');
  if (!speech) lines.push(`No transcript was made: ${input.noTranscript ?? 'no transcription server is configured'}.`);
  else if (!speech.some((s) => s.text.trim())) lines.push('The transcript is empty: nothing was said.');
  if (input.keyframesOf?.length) lines.push(`Screenshots taken at ${listNumbers(input.keyframesOf)} come with this summary.`);
  return `<${SUMMARY_TAG}>\n${defuse(lines.join('\n'))}\n</${SUMMARY_TAG}>`;
}
