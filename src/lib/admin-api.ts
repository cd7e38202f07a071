// Typed calls for the admin endpoints (spec §7 "Admin") and the shapes of spec §3 "Communication
// message" and "Thread needing approval". The paths double as useResource keys.
import { request } from './http.ts';
import type { AgentRunState, NeedsHelp, Step, Thread } from './types.ts';

/** A row of the Admin Dashboard: any user's agent. updated_at is its last activity (its own or a thread's). */
export type AdminAgent = {
  id: number;
  name: string;
  owner_id: number;
  owner_email: string;
  target_run_state: AgentRunState;
  agent_running: boolean;
  number_scheduled_threads: number;
  number_threads_requiring_approval: number;
  updated_at: string;
};

export type AdminThread = Thread & { id: number; created_at: string };
/** The agent page's agent: desktop_instance is the instance running its desktop (several servers), else null. */
export type AdminAgentThreads = { agent: AdminAgent & { desktop_instance?: string | null }; threads: AdminThread[] };
/** One thread with its agent and its newest steps (the History list). */
export type AdminThreadDetail = AdminThread & { agent_name: string; owner_email: string; steps: Step[]; total_steps: number };

export type OutboundState = 'success' | 'requires_approval' | 'queued' | 'dead';
export type CommMessage = {
  id: number;
  role: 'inbound' | 'outbound';
  /** null for inbound mail. */
  outbound_state: OutboundState | null;
  text: string;
  /** File names. */
  files: string[];
  created_at: string;
  from_address: string;
  to_address: string;
  subject: string;
  attempts: number;
  last_error: string | null;
  sent_at: string | null;
  /** Inbound: whether the sender passed SPF/DKIM/DMARC for the agent's accepted senders (null: not checked). */
  sender_verified?: boolean | null;
  /** Inbound: what the sender checks found. */
  sender_auth?: string | null;
  /** Inbound: why the mail did not start a run by itself. */
  held_reason?: 'unverified' | 'rate' | null;
  /** When the address's domain is an IDN (xn--): its Unicode form, and the scripts of a label that mixes them. */
  to_idn?: IdnView | null;
  from_idn?: IdnView | null;
};

export type IdnView = { unicode: string; mixed_scripts: string[] | null };

export type ThreadNeedingApproval = {
  id: number; thread_name: string; agent_id: number; agent_name: string; updated_at: string;
  /** Issue 19: threads waiting for a person are listed too (approval_required false, needs_help set). */
  approval_required?: boolean;
  needs_help?: NeedsHelp | null;
};

/** The data directory's disk (Ops Dashboard): below reserve_bytes free, uploads and mail attachments are refused. */
export type DiskSpace = { free_bytes: number; total_bytes: number; reserve_bytes: number; low: boolean };

export const adminAgentsPath = '/admin/agents';
export const adminThreadsPath = (agentId: number) => `/admin/threads?agent_id=${agentId}`;
export const adminThreadPath = (threadId: number) => `/admin/threads/${threadId}`;
export const commMessagesPath = (threadId: number) => `/admin/comm-messages?thread_id=${threadId}`;
export const approvalThreadsPath = '/admin/threads-requiring-approval';
export const adminStoragePath = '/admin/storage';
export const adminDesktopsPath = '/admin/desktops';

/**
 * Where the agents' desktops run (Ops Dashboard). With several servers on one PostgreSQL, each live instance and
 * the instance holding each agent's desktop; on one server instance_id is null and placements are its own desktops.
 */
export type DesktopPlacements = {
  instance_id: string | null;
  instances: { id: string; address: string; desktop_host: boolean; desktops: number; heartbeat_at: string }[];
  placements: { agent_id: number; agent_name?: string | null; instance_id: string | null; stale: boolean; sleeping?: boolean }[];
};

export const deleteAdminThread = (threadId: number) => request<null>(adminThreadPath(threadId), { method: 'DELETE' });
export const updateCommMessageText = (id: number, text: string) =>
  request<CommMessage>(`/admin/comm-messages/${id}/update-text`, { method: 'POST', body: { text } });
export const queueCommMessage = (id: number) => request<CommMessage>(`/admin/comm-messages/${id}/queue`, { method: 'POST' });
export const deleteCommMessage = (id: number) => request<null>(`/admin/comm-messages/${id}`, { method: 'DELETE' });
