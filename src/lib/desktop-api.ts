// Typed calls of the live desktop (spec §7): entering an agent's desktop for a tunnel, taking or handing
// back control of its input, and the screenshare recording (start, stop, the final audio).
import { request } from './http.ts';
import { DEFAULT_AUDIO_TYPE } from './recorder.ts';

export type Enter = { guacamole_tunnel_url: string; session_id: string; width: number; height: number };

/** Starts the desktop if needed; the tunnel URL holds a single-use ticket, so ask again per connect. */
// A cold desktop (a new home, its sandbox, Xvnc and the apps) may take a while on a busy machine: the server bounds it.
export const enterDesktop = (agentId: number) => request<Enter>('/agents/enter', { method: 'POST', body: { agent_id: agentId }, timeout: 120_000 });

export const setControl = (agentId: number, sessionId: string, take: boolean) =>
  request<{ session_id: string; control: boolean }>(`/agents/${agentId}/control`, { method: 'POST', body: { session_id: sessionId, take } });

// --- screenshare: recording a demonstration

export type RecordingSession = {
  session_id: string;
  agent_id: number;
  thread_id: number | null;
  is_recording: boolean;
  started_at: string;
  stopped_at: string | null;
};

/** `threadId`: the thread the summary goes to (the server makes a new one without). */
export const startScreenshare = (agentId: number, threadId: number | null) =>
  request<RecordingSession>('/screenshare/start-recording', { method: 'POST', body: { agent_id: agentId, thread_id: threadId } });

export const stopScreenshare = (agentId: number, sessionId: string | null) =>
  request<RecordingSession>('/screenshare/stop-recording', { method: 'POST', body: { agent_id: agentId, ...(sessionId ? { session_id: sessionId } : {}) } });

export const AUDIO_PATH = '/screenshare/audio-final';
export type AudioReceipt = { session_id: string; received_bytes: number };

/** One upload of a recording's raw audio; audio-upload.ts retries it. http.ts's own timer is off (`timeout: 0`). */
export const postAudio = (sessionId: string, audio: Blob, signal: AbortSignal) =>
  request<AudioReceipt>(AUDIO_PATH, {
    method: 'POST',
    body: audio,
    headers: { 'X-Session-Id': sessionId, 'Content-Type': audio.type || DEFAULT_AUDIO_TYPE },
    timeout: 0,
    signal,
  });
