// Typed calls to the server, one function per endpoint of spec section 7 as screens need them.
import { request, TIMEOUTS } from './http.ts';
import type { Agent, AgentRunState, AgentSummary, MessagePage, Step, Thread } from './types.ts';

export type Role = 'admin' | 'user' | string;
/** `sign_in` (the admin's user list): how the account signs in, with a password, single sign-on, both or neither. */
export type UserSummary = { id: number; email: string; role: Role; name: string; monthly_spend_limit_cents: number; sign_in?: ('password' | 'sso')[] };
export type Me = UserSummary & { impersonated_by: UserSummary | null };

export const getMe = () => request<Me>('/users/me');
/** An admin's one-time link for a user to choose a new password (a path with the token in its fragment). */
export const makePasswordResetLink = (userId: number) =>
  request<{ path: string; expires_at: string }>(`/users/${userId}/password-reset`, { method: 'POST', body: {} });
/** A new password of one's own; how many of the user's other sessions it signed out. */
export const changePassword = (current: string, next: string) =>
  request<{ sessions_ended: number }>('/users/me/password', { method: 'PUT', body: { current_password: current, new_password: next } });
export const searchUsers = (search: string) => request<UserSummary[]>('/users/', { query: { search } });

// --- agents (spec §7 "Agents")

export const agentPath = (id: number) => `/agents/${id}`;
/** The agents grid's key (useResource), preloaded at start-up on the home screen. */
export const AGENTS_PATH = '/agents/';
export const listAgents = (search = '') => request<AgentSummary[]>('/agents/', { query: { search } });
export const getAgent = (id: number) => request<Agent>(agentPath(id));
export const createAgent = (name: string) => request<Agent>('/agents/', { method: 'POST', body: { name }, timeout: TIMEOUTS.long });
export const deleteAgent = (id: number) => request<null>(agentPath(id), { method: 'DELETE', timeout: TIMEOUTS.long });
export const setAgentRunState = (id: number, state: AgentRunState) =>
  request<{ state: AgentRunState }>(`${agentPath(id)}/run-state`, { method: 'POST', body: { state } });
export const stopAgent = (agentId: number, forceTerminate = false) =>
  request<{ result: 'stopping' | 'already_stopped' | 'error'; message: string }>(
    '/agents/stop', { method: 'POST', body: { agent_id: agentId, force_terminate: forceTerminate } });

export type AgentTextKey = 'system_prompt' | 'notes' | 'instructions';
const TEXT_PATHS: Record<AgentTextKey, string> = { system_prompt: 'system-prompt', notes: 'notes', instructions: 'instructions' };
export const getAgentText = async (id: number, key: AgentTextKey) =>
  (await request<Record<AgentTextKey, string>>(`${agentPath(id)}/${TEXT_PATHS[key]}`))[key];
export const putAgentText = (id: number, key: AgentTextKey, value: string) =>
  request(`${agentPath(id)}/${TEXT_PATHS[key]}`, { method: 'PUT', body: { [key]: value } });

/** desktop_file: where a copy landed on the agent's desktop (~/Desktop/…), null when none was put there. */
export type UploadResult = { file_path: string; file_name: string; size: number; desktop_file?: string | null };
export type UploadOptions = {
  /** Upload progress: bytes sent of the request body's total. */
  onProgress?: (progress: { loaded: number; total: number; fraction: number }) => void;
  signal?: AbortSignal;
  /** ms. @default TIMEOUTS.long (300 s) */
  timeout?: number;
};

/** POST /agents/{id}/upload_file as multipart with the single field `file`; rejects like any request (HttpError). */
export async function uploadFile(agentId: number, file: Blob & { name?: string }, options: UploadOptions = {}): Promise<UploadResult> {
  if (!(agentId > 0)) throw new TypeError('Uploads need an agent');
  const form = new FormData();
  form.append('file', file, file.name ?? 'file');
  const { onProgress, signal, timeout = TIMEOUTS.long } = options;
  return request<UploadResult>(`${agentPath(agentId)}/upload_file`, {
    method: 'POST',
    body: form,
    timeout,
    signal,
    onUploadProgress: ({ loaded, total }) => {
      const size = total ?? file.size;
      onProgress?.({ loaded, total: size, fraction: size > 0 ? Math.min(1, loaded / size) : 0 });
    },
  });
}

/** Spec §3 "Email settings"; the server adds its MAIL_DOMAIN and the agent's full address. */
/** The runaway guard's rules of an agent (issue 19); 0 turns a rule off. */
export type GuardSettings = { repeat_limit: number; cost_cap_cents: number; max_calls: number };
export const getGuardSettings = (id: number) => request<GuardSettings & { defaults: GuardSettings }>(`${agentPath(id)}/supervision`);
export const putGuardSettings = (id: number, settings: Partial<GuardSettings>) =>
  request<GuardSettings & { defaults: GuardSettings }>(`${agentPath(id)}/supervision`, { method: 'PUT', body: settings });

export type EmailSettings = { email_prefix: string | null; email_accept_from_addresses: string[] | null };
export type EmailSettingsView = EmailSettings & { mail_domain: string; email_address: string | null };
export const getEmailSettings = (id: number) => request<EmailSettingsView>(`${agentPath(id)}/email-settings`);
export const putEmailSettings = (id: number, settings: EmailSettings) =>
  request<EmailSettingsView>(`${agentPath(id)}/email-settings`, { method: 'PUT', body: settings });

// --- threads (spec §7 "Threads")
export const STEPS_FIRST_LOAD = 500;
export const STEPS_AFTER_CREATE = 100;
export const getThread = (id: number) => request<Thread>(`/threads/${id}`);
export const getSteps = (id: number, limit: number, offset = 0) =>
  request<{ steps: Step[]; total_count: number }>(`/threads/${id}/steps`, { query: { limit, offset } });
/** Creates a thread with its first message and schedules it; `agentId` is the path id. */
export const createNewThread = (agentId: number, userText: string, userFiles: string[]) =>
  request<Thread>(`/threads/${agentId}/create-new-thread`, { method: 'POST', body: { user_text: userText, user_files: userFiles } });
export const setUserInputAndSchedule = (threadId: number, userText: string, userFiles: string[]) =>
  request<Step>(`/threads/${threadId}/set-user-input-and-schedule`, { method: 'POST', body: { user_text: userText, user_files: userFiles } });
export const stopThread = (id: number) => request<Thread>(`/threads/${id}/stop`, { method: 'POST' });
export const removeFromSchedule = (id: number) => request<Thread>(`/threads/${id}/remove-from-schedule`, { method: 'POST' });
export const setScheduleSequence = (id: number, targetSequence: number) =>
  request<Thread>(`/threads/${id}/set-schedule-sequence`, { method: 'POST', query: { target_sequence: targetSequence } });
export const deleteThread = (id: number) => request<null>(`/threads/${id}`, { method: 'DELETE' });

// --- messages and realtime
export const MESSAGE_PAGE_SIZE_CHAT = 100;
/** Spec §9 "Message page size": 50 in the agent list view. */
export const MESSAGE_PAGE_SIZE_LIST = 50;
export const agentMessagesPath = (agentId: number, pageSize: number) => `/messages/agent/${agentId}?page=1&page_size=${pageSize}`;
export const getMessages = (agentId: number, page = 1, pageSize = 50) =>
  request<MessagePage>(`/messages/agent/${agentId}`, { query: { page, page_size: pageSize } });
export const negotiateThread = (threadId: number) =>
  request<{ url: string; group: string }>('/realtime/negotiate', { method: 'POST', body: { thread_id: threadId, hub: 'thread_hub' } });
