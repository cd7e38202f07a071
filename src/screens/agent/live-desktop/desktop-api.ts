// The live desktop's calls (spec §7): entering an agent's desktop for a tunnel, taking or handing back
// control of its input, and the recording flag the rings read (session storage, per agent).
import { request } from '../../../lib/http.ts';

export type Enter = { guacamole_tunnel_url: string; session_id: string; width: number; height: number };

/** Starts the desktop if needed; the tunnel URL holds a single-use ticket, so ask again per connect. */
export const enterDesktop = (agentId: number) => request<Enter>('/agents/enter', { method: 'POST', body: { agent_id: agentId }, timeout: 30_000 });

export const setControl = (agentId: number, sessionId: string, take: boolean) =>
  request<{ session_id: string; control: boolean }>(`/agents/${agentId}/control`, { method: 'POST', body: { session_id: sessionId, take } });

/** Session-storage key of the per-agent recording flag (spec §3 "Session storage, per agent: is_recording"). */
export const recordingKey = (agentId: number) => `is_recording_${agentId}`;

export function isRecording(agentId: number): boolean {
  try {
    return sessionStorage.getItem(recordingKey(agentId)) === 'true';
  } catch {
    return false;
  }
}

// --- screenshare (spec §7): recording a demonstration

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

/** Session-storage keys of the recording's session id and its start (server time), per agent. */
export const sessionIdKey = (agentId: number) => `session_id_${agentId}`;
export const startedAtKey = (agentId: number) => `recording_started_at_${agentId}`;

export type StoredRecording = { recording: boolean; sessionId: string | null; startedAt: string | null };

export function readStoredRecording(agentId: number): StoredRecording {
  try {
    return {
      recording: sessionStorage.getItem(recordingKey(agentId)) === 'true',
      sessionId: sessionStorage.getItem(sessionIdKey(agentId)),
      startedAt: sessionStorage.getItem(startedAtKey(agentId)),
    };
  } catch {
    return { recording: false, sessionId: null, startedAt: null };
  }
}

/** Spec §4: the flag is true on start and false on stop; the session id stays for the audio upload. */
export function storeRecording(agentId: number, value: StoredRecording): void {
  try {
    sessionStorage.setItem(recordingKey(agentId), String(value.recording));
    for (const [key, v] of [[sessionIdKey(agentId), value.sessionId], [startedAtKey(agentId), value.startedAt]] as const) {
      if (v) sessionStorage.setItem(key, v);
      else sessionStorage.removeItem(key);
    }
  } catch {
    // Storage refused (sandbox, quota): the recording still works for this page.
  }
  window.dispatchEvent(new Event(RECORDING_EVENT));
}

/** Fired on this page when the flag changes ('storage' only fires in other tabs). */
export const RECORDING_EVENT = 'recording-flag';
