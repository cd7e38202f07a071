// The History list of the Admin thread page: the thread's steps as the agent screen shows them
// (user words and files, reasoning, answer, tool calls), tool-call groups closed until opened.
import { useState } from 'react';
import type { Step } from '../../lib/types.ts';
import { StepView } from '../agent/conversation/step-view.tsx';

export function HistoryList({ steps, total, threadRunning }: { steps: Step[]; total: number; threadRunning: boolean }) {
  const [open, setOpen] = useState<Record<number, boolean>>({});
  if (steps.length === 0) return <p className="muted">No steps yet.</p>;
  return (
    <>
      {total > steps.length && <p className="muted">The newest {steps.length} of {total} steps.</p>}
      <ol className="steps admin-history" aria-label="History">
        {steps.map((step) => (
          <StepView
            key={step.sequence}
            step={step}
            latestGroup={false}
            threadRunning={threadRunning}
            groupOpen={open[step.sequence] ?? null}
            onToggleGroup={(next) => setOpen((o) => ({ ...o, [step.sequence]: next }))}
          />
        ))}
      </ol>
    </>
  );
}
