// The expanded thread list (spec §2 "Thread switcher bar"): Scheduled (highest sequence first, native
// drag and drop to reorder, or the arrow keys on the handle), Running, Failed, Held (mail waiting for its owner), then the rest by age.
// Every row is made of buttons, so the list works from the keyboard; dragging is the pointer path.
import { useState, type DragEvent, type KeyboardEvent } from 'react';
import type { Thread } from '../../../lib/types.ts';
import { ageLabel } from './age-label.ts';
import { isDraft } from './drafts.ts';
import { TrashIcon, UnscheduleIcon } from '../../../ui/icons.tsx';
import { neighbour, sortScheduled } from './reorder.ts';
import { ThreadStatusIcon } from './status-icon.tsx';
import { threadIcon, threadStatus } from './thread-status.ts';

export const threadTitle = (thread: Thread | null | undefined) => thread?.name || 'New chat';

type Section = { title: string; threads: Thread[]; scheduled?: boolean };

/** The list's sections in order; empty ones are left out. */
export function threadSections(threads: readonly Thread[], now = new Date()): Section[] {
  const of = (status: ReturnType<typeof threadStatus>) => threads.filter((t) => threadStatus(t) === status);
  const sections: Section[] = [
    { title: 'Scheduled', threads: sortScheduled(of('scheduled')), scheduled: true },
    { title: 'Running', threads: of('running') },
    { title: 'Failed', threads: of('failed') },
    { title: 'Held', threads: of('held') },
  ];
  const byAge = new Map<string, Thread[]>();
  const rest = of('idle').sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at));
  for (const thread of rest) {
    const label = ageLabel(thread.updated_at, now);
    byAge.set(label, [...(byAge.get(label) ?? []), thread]);
  }
  for (const [title, group] of byAge) sections.push({ title, threads: group });
  return sections.filter((s) => s.threads.length > 0);
}

export type ThreadListProps = {
  threads: readonly Thread[];
  selectedId: Thread['id'] | null;
  onSelect: (thread: Thread) => void;
  onDelete: (thread: Thread) => void;
  onUnschedule: (thread: Thread) => void;
  onReorder: (dragged: Thread, target: Thread) => void;
};

export function ThreadList({ threads, selectedId, onSelect, onDelete, onUnschedule, onReorder }: ThreadListProps) {
  const [dragged, setDragged] = useState<Thread | null>(null);
  const [over, setOver] = useState<Thread['id'] | null>(null);
  const sections = threadSections(threads);
  if (sections.length === 0) return <p className="thread-list-empty">No threads</p>;
  const scheduled = sections.find((s) => s.scheduled)?.threads ?? [];

  const endDrag = () => {
    setDragged(null);
    setOver(null);
  };

  const dragProps = (thread: Thread) => ({
    draggable: true,
    onDragStart: (e: DragEvent) => {
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', String(thread.id));
      setDragged(thread);
    },
    onDragOver: (e: DragEvent) => {
      if (!dragged || dragged.id === thread.id) return;
      e.preventDefault(); // marks the row as a drop target
      e.dataTransfer.dropEffect = 'move';
      if (over !== thread.id) setOver(thread.id);
    },
    onDragLeave: () => setOver((id) => (id === thread.id ? null : id)),
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      if (dragged && dragged.id !== thread.id) onReorder(dragged, thread);
      endDrag();
    },
    onDragEnd: endDrag,
  });

  // The handle moves its thread one place with the arrow keys, by the same rule as a drop.
  const onHandleKey = (thread: Thread) => (e: KeyboardEvent) => {
    const direction = e.key === 'ArrowUp' ? 'up' : e.key === 'ArrowDown' ? 'down' : null;
    if (!direction) return;
    e.preventDefault();
    const target = neighbour(scheduled, thread.id, direction);
    if (target) onReorder(thread, target);
  };

  // Where the dragged row will land relative to the row under the pointer: above when it moves up.
  const dropSide = (thread: Thread) => {
    if (!dragged || over !== thread.id) return undefined;
    return (dragged.schedule_sequence ?? 0) < (thread.schedule_sequence ?? 0) ? 'above' : 'below';
  };

  return (
    <div className="thread-list">
      {sections.map((section) => (
        <section key={section.title} className="thread-section" aria-label={section.title}>
          <h3 className="thread-section-title">{section.title}</h3>
          <ul>
            {section.threads.map((thread) => {
              const name = threadTitle(thread);
              const draft = isDraft(thread);
              return (
                <li
                  key={thread.id}
                  className="thread-row"
                  data-thread-id={thread.id}
                  data-selected={thread.id === selectedId || undefined}
                  data-dragging={dragged?.id === thread.id || undefined}
                  data-drop={dropSide(thread)}
                  {...(section.scheduled ? dragProps(thread) : {})}
                >
                  {section.scheduled ? (
                    <button
                      type="button"
                      className="thread-row-handle"
                      aria-label={`Reorder ${name}`}
                      title="Drag to reorder, or use the arrow keys"
                      onKeyDown={onHandleKey(thread)}
                    >
                      <ThreadStatusIcon icon={threadIcon(thread, { draggable: true })} />
                    </button>
                  ) : (
                    <span className="thread-row-icon"><ThreadStatusIcon icon={threadIcon(thread)} /></span>
                  )}
                  <button
                    type="button"
                    className="thread-row-name"
                    aria-current={thread.id === selectedId ? 'true' : undefined}
                    onClick={() => onSelect(thread)}
                    title={name}
                  >
                    {name}
                  </button>
                  {thread.needs_help && <span className="badge waiting-badge" title={thread.needs_help.question}>Waiting for you</span>}
                  {section.scheduled && (
                    <button type="button" className="icon-button thread-row-action" aria-label={`Remove ${name} from the schedule`}
                      title="Remove from schedule" onClick={() => onUnschedule(thread)}>
                      <UnscheduleIcon size={16} />
                    </button>
                  )}
                  <button type="button" className="icon-button thread-row-action thread-row-delete"
                    aria-label={draft ? `Discard ${name}` : `Delete ${name}`} title={draft ? 'Discard draft' : 'Delete thread'}
                    onClick={() => onDelete(thread)}>
                    <TrashIcon size={16} />
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </div>
  );
}
