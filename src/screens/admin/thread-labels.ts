// How the admin screens name a thread and its state (spec §2 Admin agent page).
import type { AdminThread } from '../../lib/admin-api.ts';

export const threadTitle = (t: Pick<AdminThread, 'name'>) => t.name.trim() || 'Untitled';
export const runningLabel = (t: Pick<AdminThread, 'thread_running'>) => (t.thread_running ? 'Running' : 'Idle');
