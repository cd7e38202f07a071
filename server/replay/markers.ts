// A run's timeline (issue 44): what happened during it, each with its time from the run's start, read from what the
// run and the people around it wrote: its model calls, its tool calls (each at the moment it ended, the screen it
// left being in the recording by then), its chat messages, the person's words meanwhile, help requests and guard
// pauses, take-overs with their hand-back log, outbound mail waiting for approval, and errors. Typed text that
// looks like a secret is masked, as in the hand-back log.
import type { Queryable } from '../db/db.ts';
import { getTrace } from '../traces/traces.ts';
import { looksSecret } from '../supervision/handback-format.ts';
import { HANDBACK_PREFIX } from '../models/handback-words.ts';
import { describeAction } from '../runner/index.ts';
import type { RunRow } from './runs-read.ts';

export const MARKER_KINDS = ['model_call', 'action', 'message', 'help', 'takeover', 'approval', 'guard', 'error'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

export type Marker = { at_ms: number; kind: MarkerKind; ref_id: number | string; label: string };
/** A marker with what its detail is made of (a model call's trace is read only when asked for). */
type Found = Marker & { detail: Record<string, unknown> | { trace_id: number } };

const MASK = '••••••••';

/** The run's markers, oldest first, with their details' makings. */
async function findMarkers(q: Queryable, run: RunRow): Promise<Found[]> {
  const start = run.started_at.getTime();
  const at = (t: Date | number) => Math.max(0, (typeof t === 'number' ? t : t.getTime()) - start);
  const until = run.ended_at ?? new Date();
  const found: Found[] = [];

  const calls = await q.query<{ id: number; created_at: Date; input_tokens: number; output_tokens: number; estimated_cost: number; model: string }>(
    `SELECT id, created_at, input_tokens, output_tokens, estimated_cost, model FROM llm_traces
     WHERE run_id = $1 AND (parameters->>'paused') IS NULL ORDER BY id`, [run.id]);
  for (const c of calls) {
    const n = (v: number) => v.toLocaleString('en-US');
    const label = `Model call · ${n(c.input_tokens)} in · ${n(c.output_tokens)} out · $${c.estimated_cost.toFixed(4)}`;
    found.push({ at_ms: at(c.created_at), kind: 'model_call', ref_id: c.id, label, detail: { trace_id: c.id } });
  }

  const steps = await q.query<{ id: number; sequence: number; created_at: Date; updated_at: Date; tool_calls: ToolCall[] }>(
    'SELECT id, sequence, created_at, updated_at, tool_calls FROM thread_steps WHERE run_id = $1 ORDER BY sequence', [run.id]);
  for (const s of steps) {
    for (const call of s.tool_calls) {
      if (call.status === 'pending') continue;
      const input = maskInput(call.input);
      const label = call.name.endsWith('computer') ? describeAction(input) : call.name;
      const detail = { name: call.name, input, status: call.status, output: call.output ?? null, step_sequence: s.sequence };
      found.push({ at_ms: at(call.done_at ?? s.updated_at), kind: 'action', ref_id: call.id, label, detail });
    }
  }

  // The run's own messages, and the person's words in the thread while it ran.
  const messages = await q.query<{ id: number; role: string; created_at: Date; text: string | null; help_reason: string | null }>(
    `SELECT id, role, created_at, coalesce(assistant_data->>'text', user_data->>'text') AS text, assistant_data->'needs_help'->>'reason' AS help_reason
     FROM chat_messages
     WHERE (run_id = $1 AND role IN ('assistant', 'warning', 'error'))
        OR (thread_id = $2 AND role = 'user' AND created_at BETWEEN $3 AND $4)
     ORDER BY id`, [run.id, run.thread_id, run.started_at, until]);
  for (const m of messages) {
    const text = m.text ?? '';
    const kind: MarkerKind = m.help_reason ? (m.help_reason === 'asked' ? 'help' : 'guard') : m.role === 'error' ? 'error' : 'message';
    const who = m.role === 'user' ? 'You' : m.role === 'warning' ? 'Note' : m.role === 'error' ? 'Error' : 'Agent';
    found.push({ at_ms: at(m.created_at), kind, ref_id: m.id, label: `${who}: ${short(text, 80)}`, detail: { role: m.role, text } });
  }

  // Take-overs: who took control and when it was handed back (the audit trail is control's only record), with the log.
  const control = await q.query<{ id: string; at: Date; action: string; actor_label: string | null }>(
    `SELECT id::text, at, action, actor_label FROM audit_events
     WHERE target_type = 'agent' AND target_id = $1 AND action IN ('desktop.take_control', 'desktop.control_takeover', 'desktop.hand_back')
       AND at BETWEEN $2 AND $3 ORDER BY id`, [String(run.agent_id), run.started_at, until]);
  for (const c of control) {
    const who = c.actor_label ?? 'Someone';
    const label = c.action === 'desktop.hand_back' ? `${who} handed the desktop back` : `${who} took control of the desktop`;
    found.push({ at_ms: at(c.at), kind: 'takeover', ref_id: c.id, label, detail: { text: label } });
  }
  const handbacks = await q.query<{ id: number; created_at: Date; user_text: string }>(
    `SELECT id, created_at, user_text FROM thread_steps WHERE thread_id = $1 AND created_at BETWEEN $2 AND $3 AND starts_with(user_text, $4)
     ORDER BY sequence`, [run.thread_id, run.started_at, until, HANDBACK_PREFIX]);
  for (const h of handbacks) {
    found.push({ at_ms: at(h.created_at), kind: 'takeover', ref_id: h.id, label: 'Hand-back log', detail: { text: h.user_text } });
  }

  const mail = await q.query<{ id: number; created_at: Date; to_address: string; subject: string; text: string; outbound_state: string }>(
    `SELECT id, created_at, to_address, subject, text, outbound_state FROM comm_messages
     WHERE thread_id = $1 AND role = 'outbound' AND created_at BETWEEN $2 AND $3 ORDER BY id`, [run.thread_id, run.started_at, until]);
  for (const m of mail) {
    const label = `Mail to ${m.to_address}${m.outbound_state === 'requires_approval' ? ' waits for approval' : ` (${m.outbound_state})`}`;
    found.push({ at_ms: at(m.created_at), kind: 'approval', ref_id: m.id, label, detail: { text: `To: ${m.to_address}\nSubject: ${m.subject}\n\n${m.text}` } });
  }

  return found.sort((a, b) => a.at_ms - b.at_ms);
}

type ToolCall = { id: string; name: string; status: string; input?: Record<string, unknown>; output?: string; done_at?: number };

/** A tool call's input with typed text that looks like a secret masked. */
function maskInput(input: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy = { ...(input ?? {}) };
  if (copy.action === 'type' && typeof copy.text === 'string' && looksSecret(copy.text.trim())) copy.text = MASK;
  return copy;
}

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ');

export async function listMarkers(q: Queryable, run: RunRow): Promise<Marker[]> {
  return (await findMarkers(q, run)).map(({ detail: _, ...m }) => m);
}

/** The marker at `index` with its detail (a model call's: its trace, as GET /api/llm_traces/:id gives it); null when none. */
export async function markerDetail(q: Queryable, run: RunRow, index: number) {
  const found = (await findMarkers(q, run))[index];
  if (!found) return null;
  const { detail, ...marker } = found;
  if ('trace_id' in detail) return { ...marker, detail: { trace: await getTrace(q, detail.trace_id as number) } };
  return { ...marker, detail };
}

/**
 * The stretches to skip in playback: at least `minMs` long with no frame written and no marker, in ms from the run's
 * start. `activity` is the recorder's (ms since the epoch); none while the run is being recorded.
 */
export function idleSpans(run: Pick<RunRow, 'started_at' | 'ended_at' | 'recording_activity'>, markers: Marker[], minMs = 3000) {
  if (!run.recording_activity || !run.ended_at) return [];
  const start = run.started_at.getTime();
  const busy = [
    ...run.recording_activity.map(([from, to]) => [from - start, to - start] as const),
    ...markers.map((m) => [m.at_ms, m.at_ms] as const),
  ].sort((a, b) => a[0] - b[0]);
  const idle: { from_ms: number; to_ms: number }[] = [];
  let covered = 0;
  for (const [from, to] of [...busy, [run.ended_at.getTime() - start, Infinity] as const]) {
    if (from - covered >= minMs) idle.push({ from_ms: covered, to_ms: from });
    covered = Math.max(covered, to);
  }
  return idle;
}
