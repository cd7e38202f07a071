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
