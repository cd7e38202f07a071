// Draft threads (spec §4 "Draft to real thread"): client-only placeholders with a `tmp-` id and the
// name 'New thread', shown before the server's threads until their first message creates the real one.
import type { Thread } from '../../../lib/types.ts';

export const DRAFT_PREFIX = 'tmp-';
export const DRAFT_NAME = 'New thread';

export const isDraftId = (id: Thread['id'] | null | undefined): id is string => typeof id === 'string' && id.startsWith(DRAFT_PREFIX);
export const isDraft = (thread: Pick<Thread, 'id'> | null | undefined): boolean => isDraftId(thread?.id);

function randomPart(): string {
  return globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2);
}

export function createDraft(agentId: number, now: Date = new Date()): Thread {
  const stamp = now.toISOString();
  return {
    id: `${DRAFT_PREFIX}${randomPart()}`,
    agent_id: agentId,
    name: DRAFT_NAME,
    description: '',
    thread_running: false,
    error_message: '',
    schedule_sequence: null,
    approval_required: false,
    target_run_state: null,
    target_sequence: null,
    created_at: stamp,
    updated_at: stamp,
  };
}

/** The list once the draft `draftId` has become the thread `real`: `real` takes the draft's place. */
export function replaceDraft(list: readonly Thread[], draftId: string, real: Thread): Thread[] {
  const at = list.findIndex((t) => t.id === draftId);
  const rest = list.filter((t) => t.id !== draftId && t.id !== real.id);
  if (at === -1) return [real, ...rest];
  rest.splice(Math.min(at, rest.length), 0, real);
  return rest;
}

/**
 * The list the switcher shows: local threads (drafts, and threads just made from a draft that the polled
 * server list does not hold yet) in front of the server's threads. Once the server lists a thread, its
 * copy wins, so a created thread never vanishes between its creation and the next agent refresh.
 */
export function withLocal(local: readonly Thread[], threads: readonly Thread[]): Thread[] {
  const known = new Set(threads.map((t) => t.id));
  return [...local.filter((t) => !known.has(t.id)), ...threads];
}
