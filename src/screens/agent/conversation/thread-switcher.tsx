// The thread switcher bar (spec §2): the current thread's name and status icon, a button that shows all
// threads (a popover list that closes on Escape or an outside click), and one that starts a draft.
import { useEffect, useId, useRef } from 'react';
import type { Thread } from '../../../lib/types.ts';
import { ChevronIcon, PlusIcon } from '../../../ui/icons.tsx';
import { ThreadStatusIcon } from './status-icon.tsx';
import { ThreadList, threadTitle, type ThreadListProps } from './thread-list.tsx';
import { threadIcon } from './thread-status.ts';

type ThreadSwitcherProps = Omit<ThreadListProps, 'selectedId'> & {
  selected: Thread | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onNewThread: () => void;
};

export function ThreadSwitcher({ selected, open, onOpenChange, onNewThread, ...list }: ThreadSwitcherProps) {
  const listId = useId();
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const name = threadTitle(selected);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      onOpenChange(false);
      // Focus inside the list would otherwise fall back to the page when the list unmounts.
      if (root.current?.contains(document.activeElement)) toggle.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) onOpenChange(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open, onOpenChange]);

  return (
    <div className="thread-switcher" ref={root}>
      <div className="thread-switcher-bar">
        <button
          ref={toggle}
          type="button"
          className="thread-switcher-current"
          aria-expanded={open}
          aria-controls={listId}
          // The name starts with the visible text (WCAG 2.5.3, label in name).
          aria-label={`${name}: show all threads`}
          title="Show all threads"
          onClick={() => onOpenChange(!open)}
        >
          <ThreadStatusIcon icon={selected ? threadIcon(selected) : null} />
          <span className="thread-switcher-name" data-testid="current-thread-name">{name}</span>
          <ChevronIcon size={16} className="thread-switcher-chevron" />
        </button>
        <button type="button" className="icon-button" aria-label="New thread" title="New thread" onClick={onNewThread}>
          <PlusIcon />
        </button>
      </div>
      {open && (
        <div className="thread-popover" id={listId} role="region" aria-label="All threads">
          <ThreadList {...list} selectedId={selected?.id ?? null} />
        </div>
      )}
    </div>
  );
}
