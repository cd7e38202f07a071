// Thread display status (spec §4 "Thread display status"), the icon each status shows, and which
// thread to select when none is. Pure: no React, no requests.
import type { Thread } from '../../../lib/types.ts';
import { isDraft } from './drafts.ts';

export type ThreadStatus = 'failed' | 'running' | 'scheduled' | 'held' | 'idle';
export type StatusIcon = 'warning' | 'spinner' | 'hourglass' | 'drag' | 'held' | 'check';

type StatusFields = Pick<Thread, 'error_message' | 'thread_running' | 'schedule_sequence'> & Partial<Pick<Thread, 'held_reason'>>;

/**
 * failed: error_message set; running: thread_running without error; scheduled: idle with a sequence; held: its mail
 * waits for the owner (not done: nothing ran); else idle (done).
 */
export function threadStatus(thread: StatusFields): ThreadStatus {
  if (thread.error_message) return 'failed';
  if (thread.thread_running) return 'running';
  if (thread.schedule_sequence !== null && thread.schedule_sequence !== undefined) return 'scheduled';
  if (thread.held_reason) return 'held';
  return 'idle';
}

/** The selected thread runs: the input area becomes the stop button. */
export const isRunning = (thread: StatusFields | null | undefined): boolean => !!thread && threadStatus(thread) === 'running';

/**
 * Warning for failed, spinner for running, check for done. Scheduled shows an hourglass, or a drag
 * handle where the row can be dragged (the Scheduled section of the list).
 */
export function statusIcon(status: ThreadStatus, { draggable = false } = {}): StatusIcon {
  switch (status) {
    case 'failed': return 'warning';
    case 'running': return 'spinner';
    case 'scheduled': return draggable ? 'drag' : 'hourglass';
    case 'held': return 'held';
    default: return 'check';
  }
}

/** The icon of a thread, or null for a draft: it has neither run nor been scheduled yet. */
export function threadIcon(thread: Thread, options?: { draggable?: boolean }): StatusIcon | null {
  return isDraft(thread) ? null : statusIcon(threadStatus(thread), options);
}

/**
 * Spec §4: with no thread selected, the running thread is selected first, otherwise the first one; before the first,
 * a thread waiting for a person (its run paused to ask), which is what an agent marked "Waiting for a person" is about.
 */
export function autoSelect(threads: readonly Thread[]): Thread | null {
  return threads.find((t) => isRunning(t)) ?? threads.find((t) => t.needs_help) ?? threads[0] ?? null;
}
