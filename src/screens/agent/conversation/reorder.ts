// Reordering scheduled threads (spec §4): the Scheduled section lists threads by descending
// schedule_sequence (the one that runs next, sequence 1, at the bottom). Dropping a thread onto another
// asks for the target's sequence, plus one when it moves upward (to a higher sequence).
import type { Thread } from '../../../lib/types.ts';

type Sequenced = Pick<Thread, 'id' | 'schedule_sequence'>;

/** Scheduled threads, highest sequence first. */
export function sortScheduled<T extends Sequenced>(threads: readonly T[]): T[] {
  return threads
    .filter((t) => t.schedule_sequence !== null && t.schedule_sequence !== undefined)
    .sort((a, b) => b.schedule_sequence! - a.schedule_sequence!);
}

/** The target_sequence to send when `dragged` is dropped onto `target`; null when nothing would move. */
export function dropSequence(dragged: Sequenced, target: Sequenced): number | null {
  const from = dragged.schedule_sequence;
  const to = target.schedule_sequence;
  if (dragged.id === target.id || from === null || to === null || from === undefined || to === undefined) return null;
  return from < to ? to + 1 : to;
}

/**
 * Keyboard path for the same rule: the neighbour that an arrow key moves `dragged` onto in the shown
 * (descending) list; 'up' is towards the top. Null at either end.
 */
export function neighbour<T extends Sequenced>(sorted: readonly T[], id: T['id'], direction: 'up' | 'down'): T | null {
  const at = sorted.findIndex((t) => t.id === id);
  if (at === -1) return null;
  return sorted[direction === 'up' ? at - 1 : at + 1] ?? null;
}
