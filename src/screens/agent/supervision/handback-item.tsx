// A take-over handed back (issue 19), collapsed to 'You took over for 2 min: 14 actions'; it opens to the action
// log the agent was given.
import { useId, useState } from 'react';
import { ChevronIcon } from '../../../ui/icons.tsx';
import type { Handback } from './handback.ts';

export function HandbackItem({ handback }: { handback: Handback }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="message handback">
      <button type="button" className="handback-toggle" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
        <span>{handback.title}</span>
        <ChevronIcon size={15} className="tool-group-chevron" />
      </button>
      {open && (
        <ol className="handback-list" id={listId}>
          {handback.lines.map((line, i) => <li key={i}>{line.replace(/^\d+\. /, '')}</li>)}
        </ol>
      )}
    </div>
  );
}
