// A step's tool calls as one expandable group (spec §2): 'Completing N actions' while the thread runs,
// 'Completed N action(s)' when done; N counts the calls shown (status 'pending' is hidden).
import { useId } from 'react';
import type { ToolCall } from '../../../lib/types.ts';
import { CheckIcon, ChevronIcon, ToolIcon, UnscheduleIcon, WarningIcon } from '../../../ui/icons.tsx';

export function toolGroupTitle(count: number, active: boolean): string {
  return active ? `Completing ${count} actions` : `Completed ${count} action(s)`;
}

type ToolCallGroupProps = {
  calls: ToolCall[];
  active: boolean;
  open: boolean;
  onToggle: () => void;
};

export function ToolCallGroup({ calls, active, open, onToggle }: ToolCallGroupProps) {
  const listId = useId();
  return (
    <div className="tool-group" data-active={active || undefined}>
      <button type="button" className="tool-group-toggle" aria-expanded={open} aria-controls={listId} onClick={onToggle}>
        {active ? <span className="thread-spinner" aria-hidden="true" /> : <ToolIcon size={15} />}
        <span>{toolGroupTitle(calls.length, active)}</span>
        <ChevronIcon size={15} className="tool-group-chevron" />
      </button>
      {open && (
        <ul className="tool-group-list" id={listId}>
          {calls.map((call, i) => (
            <li key={call.id ?? i} className="tool-call" data-status={call.status}>
              <span className="tool-call-status" title={call.status}>
                {call.status === 'failed' ? <WarningIcon size={14} />
                  : call.status !== 'running' ? <CheckIcon size={14} />
                  // A call still marked running in a finished thread was cut short: no spinner.
                  : active ? <span className="thread-spinner" aria-hidden="true" />
                  : <UnscheduleIcon size={14} />}
                <span className="visually-hidden">{call.status}</span>
              </span>
              <span className="tool-call-name">{call.name}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
