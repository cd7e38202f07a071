// The recording flag the rings read (spec §3 "Session storage, per agent": demo mode, is_recording, the
// session id and the start), kept in session storage per agent; the endpoint calls are in src/lib/desktop-api.ts.

/** Session-storage key of the per-agent recording flag (spec §3 "Session storage, per agent: is_recording"). */
export const recordingKey = (agentId: number) => `is_recording_${agentId}`;

export function isRecording(agentId: number): boolean {
  try {
    return sessionStorage.getItem(recordingKey(agentId)) === 'true';
  } catch {
    return false;
  }
}

/** Spec §3's per-agent demo mode: true while a demonstration is being recorded, like is_recording. */
export const demoModeKey = (agentId: number) => `demo_mode_${agentId}`;

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
    sessionStorage.setItem(demoModeKey(agentId), String(value.recording));
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
