// Typed calls for runs and their replays (issue 44): a thread's runs, a run's replay with its markers,
// a marker's detail, the recording's bytes, and the read-only share links. A shared replay is read
// without sign-in: those calls go out as plain fetches, with no token and no impersonation header.
import { GrowingBlob } from './growing-blob.ts';
import { HttpError, request, TIMEOUTS } from './http.ts';
import type { Trace } from './traces-api.ts';

export type RunOutcome = 'running' | 'done' | 'stopped' | 'failed' | 'paused';

export type RunSummary = {
  id: number;
  thread_id: number;
  agent_id: number;
  started_at: string;
  ended_at: string | null;
  outcome: RunOutcome;
  /** USD. */
  cost: number;
  has_replay: boolean;
};

export const MARKER_KINDS = ['model_call', 'action', 'message', 'help', 'takeover', 'approval', 'guard', 'error'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

/** at_ms: from the run's start (started_at). */
export type ReplayMarker = { at_ms: number; kind: MarkerKind; ref_id: number | string | null; label: string };
/** Stretches with no change on screen and no marker, in the markers' time base. */
export type IdleSpan = { from_ms: number; to_ms: number };

export type Replay = {
  run_id: number;
  thread_id: number;
  agent_id: number;
  agent_name: string | null;
  thread_name: string | null;
  started_at: string;
  /** null while the run is still going. */
  ended_at: string | null;
  duration_ms: number;
  outcome: RunOutcome;
  cost: number;
  /** null when the run has no recording. */
  recording_url: string | null;
  bytes: number;
  /** When the recording's first frame was made, from the run's start. */
  recording_offset_ms: number;
  /** Why the recording stopped before the run did, said to the person; null when it did not. */
  recording_stopped: string | null;
  idle: IdleSpan[];
  can_share: boolean;
  /** Set on a replay opened through a share link. */
  shared: { by: string; expires_at: string } | null;
  markers: ReplayMarker[];
};

export type ActionInput = { action: string; coordinate?: [number, number] | number[]; text?: string; [key: string]: unknown };
/** A tool call: its input (typed secrets masked), and, as the server also gives them, its tool, status and output. */
export type ActionDetail = { input: ActionInput; step_sequence: number | null; name?: string; status?: string; output?: string | null };
export type MarkerDetail = ReplayMarker & { detail: { trace: Trace } | ActionDetail | { text: string } | null };

export type ReplayShare = { id: number; created_at: string; expires_at: string; created_by: string | number | null };
export type CreatedShare = { id: number; url: string; expires_at: string };

/** Where a replay is read from: the signed-in owner's (or admin's) run, or a share link's token. */
export type ReplaySource = { kind: 'run'; runId: number } | { kind: 'shared'; token: string };

const byToken = (token: string) => `/replay-shares/by-token/${encodeURIComponent(token)}`;

export const threadRunsPath = (threadId: number) => `/threads/${threadId}/runs`;
export const replayPath = (source: ReplaySource) =>
  source.kind === 'run' ? `/runs/${source.runId}/replay` : byToken(source.token);
export const markerPath = (source: ReplaySource, index: number) =>
  source.kind === 'run' ? `/runs/${source.runId}/replay/markers/${index}` : `${byToken(source.token)}/markers/${index}`;
export const sharesPath = (runId: number) => `/runs/${runId}/replay/shares`;

/** Recordings run to tens of MB: the long timeout of uploads. */
const RECORDING_TIMEOUT = TIMEOUTS.long;
const API_BASE = '/api';

/** A GET without sign-in (a share link's reader), failing like request() does (HttpError with the parsed body). */
async function publicGet<T>(path: string, parse: 'json' | 'stream' = 'json', signal?: AbortSignal): Promise<T> {
  const url = path.startsWith(`${API_BASE}/`) ? path : API_BASE + path;
  const response = await globalThis.fetch(url, { credentials: 'omit', signal });
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let body: unknown = text || null;
    try {
      body = JSON.parse(text);
    } catch {
      // proxies answer errors with HTML or plain text
    }
    throw new HttpError(response, 'GET', url, body);
  }
  return (parse === 'stream' ? response.body : await response.json()) as T;
}

/** useResource's fetcher for keys of this source: its default (the signed-in client), or a plain fetch for a share link. */
export const replayFetcher = <T>(source: ReplaySource): ((key: string) => Promise<T>) | undefined =>
  source.kind === 'run' ? undefined : (key) => publicGet<T>(key);

export const getThreadRuns = (threadId: number) => request<RunSummary[]>(threadRunsPath(threadId));
export const getReplay = (source: ReplaySource) =>
  source.kind === 'run' ? request<Replay>(replayPath(source)) : publicGet<Replay>(replayPath(source));
export const getMarkerDetail = (source: ReplaySource, index: number) =>
  source.kind === 'run' ? request<MarkerDetail>(markerPath(source, index)) : publicGet<MarkerDetail>(markerPath(source, index));

/**
 * The recording's bytes as they arrive (the browser un-gzips them by Content-Encoding): resolves once the answer
 * started, with a GrowingBlob that fills while the rest downloads, so that its first frames play before the end.
 * recording_url is a path under /api; the signed-in client adds /api itself, so it is taken off here.
 */
export async function getRecording(source: ReplaySource, recordingUrl: string, signal?: AbortSignal): Promise<GrowingBlob> {
  type Body = ReadableStream<Uint8Array> | null;
  const body = source.kind === 'shared' || !recordingUrl.startsWith(`${API_BASE}/`)
    ? await publicGet<Body>(recordingUrl, 'stream', signal)
    : await request<Body>(recordingUrl.slice(API_BASE.length), { parse: 'stream', timeout: RECORDING_TIMEOUT, signal });
  return GrowingBlob.reading(body);
}

export const createShare = (runId: number, expiresInS: number) =>
  request<CreatedShare>(`/runs/${runId}/replay/share`, { method: 'POST', body: { expires_in_s: expiresInS } });
export const listShares = (runId: number) => request<ReplayShare[]>(sharesPath(runId));
export const revokeShare = (id: number) => request<null>(`/replay-shares/${id}`, { method: 'DELETE' });
