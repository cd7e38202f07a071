// The selected thread's steps, oldest first, with the thread's error in a red box and the 'Thinking'
// shimmer. States: 'Select a thread', 'Loading messages...', 'No messages'. Stays scrolled to the newest
// step unless the reader has scrolled up.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Step, Thread } from '../../../lib/types.ts';
import { visibleToolCalls } from './steps.ts';
import { StepView } from './step-view.tsx';
import { isRunning } from './thread-status.ts';
import { HelpRequest } from '../supervision/help-request.tsx';
import { CredentialApprovalCard } from '../supervision/credential-approval.tsx';

type MessageListProps = {
  thread: Thread | null;
  steps: Step[];
  isLoading: boolean;
  thinking: boolean;
  /** The Take control button of a thread waiting for a person. */
  onTakeControl?: () => void;
  /** Why the scheduled thread waits (queue-notice.ts), shown below its steps. */
  notice?: ReactNode;
  /** Sequence of a run's first step → the run, for its "Watch replay" link (replay-links.ts). */
  replays?: ReadonlyMap<number, number>;
};

const NEAR_BOTTOM_PX = 80;

export function MessageList({ thread, steps, isLoading, thinking, onTakeControl, notice, replays }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  // Per step sequence, the reader's open/closed choice for its tool-call group.
  const [groupChoice, setGroupChoice] = useState<Record<number, boolean>>({});
  const threadId = thread?.id ?? null;

  useEffect(() => {
    setGroupChoice({});
    stick.current = true;
  }, [threadId]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [steps, thinking, thread?.error_message, thread?.needs_help, thread?.credential_approval?.id, threadId, notice]);

  // A smaller panel (narrower window, attachments appearing below) keeps the newest step in view.
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const el = scroller.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
  };

  let body;
  if (!thread) body = <p className="message-state">Select a thread</p>;
  else if (isLoading && steps.length === 0) body = <p className="message-state">Loading messages...</p>;
  else {
    let latestGroup = -1;
    for (const step of steps) if (visibleToolCalls(step).length > 0) latestGroup = step.sequence;
    const running = isRunning(thread);
    const help = thread.needs_help && !running ? thread.needs_help : null;
    // The step that says why the run paused repeats the card's question: while the card shows, the card says it.
    const last = steps[steps.length - 1];
    const toldByCard = help && last?.assistant_text?.endsWith(help.question) ? last.sequence : null;
    body = (
      <>
        {steps.length === 0 && !thread.error_message && <p className="message-state">No messages</p>}
        {steps.length > 0 && (
          <ol className="steps" aria-label="Messages">
            {steps.map((step) => (
              <StepView
                key={step.sequence}
                step={toldByCard === step.sequence ? { ...step, assistant_text: '' } : step}
                latestGroup={step.sequence === latestGroup}
                threadRunning={running}
                groupOpen={groupChoice[step.sequence] ?? null}
                replayRunId={replays?.get(step.sequence) ?? null}
                onToggleGroup={(open) => setGroupChoice((all) => ({ ...all, [step.sequence]: open }))}
              />
            ))}
          </ol>
        )}
        {thread.error_message && <div className="thread-error" role="alert">{thread.error_message}</div>}
        {help && <HelpRequest help={help} onTakeControl={onTakeControl} />}
        {/* Keyed by the request: a new one starts unanswered. */}
        {thread.credential_approval && <CredentialApprovalCard key={thread.credential_approval.id} approval={thread.credential_approval} />}
        {notice}
        {thinking && <p className="thinking" aria-live="polite">Thinking</p>}
      </>
    );
  }

  return (
    <div className="message-list" ref={scroller} onScroll={onScroll}>
      {body}
    </div>
  );
}
