// The conversation panel of the agent screen (spec §2 "Conversation panel"): thread switcher bar, the
// selected thread's steps, and the input area (or the round stop button while the thread runs). The
// agent's `threads`, refreshed by the screen, drive the list; every write here ends in onAgentChange().
// Fills its container's height.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  createNewThread, deleteThread, removeFromSchedule, setAgentRunState, setScheduleSequence, setUserInputAndSchedule, stopAgent, stopThread,
} from '../../../lib/api.ts';
import type { Agent, Thread } from '../../../lib/types.ts';
import { useMessageSocket } from '../../../lib/use-message-socket.ts';
import { ChatInput } from './chat-input.tsx';
import { createDraft, isDraft, replaceDraft, withLocal } from './drafts.ts';
import { StopIcon } from '../../../ui/icons.tsx';
import { applyMessageEvent, refreshesAgent } from './message-events.ts';
import { MessageList } from './message-list.tsx';
import { queueNotice } from './queue-notice.ts';
import { useReplayLinks } from './replay-links.ts';
import { dropSequence } from './reorder.ts';
import { showThinking } from './shimmer.ts';
import { ThreadSwitcher } from './thread-switcher.tsx';
import { autoSelect, isRunning } from './thread-status.ts';
import { useThreadSteps } from './use-thread-steps.ts';

export type ConversationPanelProps = {
  agent: Agent;
  onAgentChange: () => void;
  disabled?: boolean;
  /** Tells the screen which real thread is selected (null for none or a draft), e.g. for the traces panel. */
  onThreadChange?: (threadId: number | null) => void;
  /** A thread waiting for a person offers Take control (the live desktop's). */
  onTakeControl?: () => void;
  /** The thread a link named (`?thread=`, a webhook's): selected first, if the agent has it. */
  initialThreadId?: number | null;
};

export const deleteQuestion = (name: string) => `Are you sure you want to delete thread "${name}"? This action cannot be undone.`;
export const UNSCHEDULE_QUESTION = 'Remove this thread from the schedule?';
export const DELETE_FAILED = 'Failed to delete thread. Please try again.';

export function ConversationPanel(props: ConversationPanelProps) {
  // Drafts and selection belong to one agent: a different agent starts afresh.
  return <Panel key={props.agent.id} {...props} />;
}

function Panel({ agent, onAgentChange, disabled = false, onThreadChange, onTakeControl, initialThreadId = null }: ConversationPanelProps) {
  /** Drafts, and threads made from a draft that the polled agent does not list yet. */
  const [local, setLocal] = useState<Thread[]>([]);
  /** Threads deleted here that the polled agent may still list for a moment. */
  const [deleted, setDeleted] = useState<ReadonlySet<Thread['id']>>(new Set());
  const [selectedId, setSelectedId] = useState<Thread['id'] | null>(initialThreadId);
  const [listOpen, setListOpen] = useState(false);

  const serverThreads = useMemo(() => agent.threads ?? [], [agent.threads]);
  const threads = useMemo(
    () => withLocal(local, serverThreads.filter((t) => !deleted.has(t.id))),
    [local, serverThreads, deleted],
  );
  // Spec §4: with none selected, the running thread, else the first.
  const selected = threads.find((t) => t.id === selectedId) ?? autoSelect(threads);
  const threadId = selected && !isDraft(selected) ? Number(selected.id) : null;
  useEffect(() => onThreadChange?.(threadId), [threadId, onThreadChange]);

  useEffect(() => {
    if (selected && selected.id !== selectedId) setSelectedId(selected.id);
  }, [selected, selectedId]);

  // Forget local copies the server now lists, and deletions it no longer shows.
  useEffect(() => {
    const known = new Set(serverThreads.map((t) => t.id));
    setLocal((all) => (all.some((t) => known.has(t.id)) ? all.filter((t) => !known.has(t.id)) : all));
    setDeleted((all) => ([...all].some((id) => !known.has(id)) ? new Set([...all].filter((id) => known.has(id))) : all));
  }, [serverThreads]);

  const changed = useRef(onAgentChange);
  changed.current = onAgentChange;
  const refresh = useCallback(() => changed.current(), []);

  const { steps, isLoading, upsert, loadAfterCreate } = useThreadSteps(threadId, { onStepArrived: refresh });

  useMessageSocket(agent.id, {
    apply: applyMessageEvent,
    onEvent: (event) => refreshesAgent(event) && refresh(),
  });

  const send = async (text: string, files: string[]): Promise<boolean> => {
    try {
      if (!selected || isDraft(selected)) {
        const real = await createNewThread(agent.id, text, files);
        setLocal((all) => (selected ? replaceDraft(all, String(selected.id), real) : [real, ...all]));
        loadAfterCreate(Number(real.id));
        setSelectedId(real.id);
      } else {
        upsert(Number(selected.id), await setUserInputAndSchedule(Number(selected.id), text, files));
      }
      refresh();
      return true;
    } catch (error) {
      console.warn('Failed to send the message', error); // spec §8: logged only
      return false;
    }
  };

  const stop = async () => {
    if (threadId === null) return;
    const results = await Promise.allSettled([stopThread(threadId), stopAgent(agent.id)]);
    for (const result of results) if (result.status === 'rejected') console.warn('Failed to stop', result.reason);
    refresh();
  };

  const newThread = () => {
    // One empty draft is enough: a second click selects the one already there.
    const draft = local.find(isDraft) ?? createDraft(agent.id);
    if (!local.includes(draft)) setLocal((all) => [draft, ...all]);
    setSelectedId(draft.id);
    setListOpen(false);
  };

  const select = (thread: Thread) => {
    setSelectedId(thread.id);
    setListOpen(false);
  };

  const remove = async (thread: Thread) => {
    if (isDraft(thread)) {
      setLocal((all) => all.filter((t) => t.id !== thread.id));
      if (selectedId === thread.id) setSelectedId(null);
      return;
    }
    if (!window.confirm(deleteQuestion(thread.name || 'New chat'))) return;
    try {
      await deleteThread(Number(thread.id));
    } catch (error) {
      console.warn('Failed to delete thread', error);
      window.alert(DELETE_FAILED);
      return;
    }
    setDeleted((all) => new Set([...all, thread.id]));
    setLocal((all) => all.filter((t) => t.id !== thread.id));
    if (selectedId === thread.id) setSelectedId(null);
    refresh();
  };

  const unschedule = async (thread: Thread) => {
    if (!window.confirm(UNSCHEDULE_QUESTION)) return;
    try {
      await removeFromSchedule(Number(thread.id));
    } catch (error) {
      console.warn('Failed to remove the thread from the schedule', error); // spec §8: logged only
    }
    refresh();
  };

  const reorder = async (dragged: Thread, target: Thread) => {
    const sequence = dropSequence(dragged, target);
    if (sequence === null) return;
    try {
      await setScheduleSequence(Number(dragged.id), sequence);
    } catch (error) {
      console.warn('Failed to reorder the schedule', error); // spec §8: logged only
    }
    refresh();
  };

  const running = isRunning(selected);
  const replays = useReplayLinks(threadId, steps, running);
  const thinking = showThinking(selected, agent.agent_running, steps);
  const waiting = queueNotice(selected, agent);
  const [starting, setStarting] = useState(false);
  // As the title bar's toggle does (spec §4): fast, through the schedule in order, this thread included.
  const start = async () => {
    setStarting(true);
    try {
      await setAgentRunState(agent.id, 'run_all');
    } catch (error) {
      console.warn('Failed to start the agent', error);
    } finally {
      setStarting(false);
    }
    refresh();
  };
  // Held mail runs next: at the head of the agent's schedule (a stopped agent then says so, with its start).
  const runHeld = async () => {
    if (!selected || isDraft(selected)) return;
    setStarting(true);
    try {
      await setScheduleSequence(Number(selected.id), 1);
    } catch (error) {
      console.warn('Failed to run the held thread', error);
    } finally {
      setStarting(false);
    }
    refresh();
  };
  const notice = waiting && (
    <div className="queue-notice" role="status">
      <p>{waiting.text}</p>
      {waiting.canRun && (
        <button type="button" className="button button-small button-primary" disabled={starting} onClick={() => void runHeld()}>
          Run it
        </button>
      )}
      {waiting.canStart && (
        <button type="button" className="button button-small button-primary" disabled={starting} onClick={() => void start()}>
          {starting ? 'Starting...' : 'Start the agent'}
        </button>
      )}
    </div>
  );

  return (
    <div className="conversation">
      <ThreadSwitcher
        threads={threads}
        selected={selected}
        open={listOpen}
        onOpenChange={setListOpen}
        onNewThread={newThread}
        onSelect={select}
        onDelete={remove}
        onUnschedule={unschedule}
        onReorder={reorder}
      />
      <MessageList
        thread={selected}
        steps={steps}
        isLoading={isLoading}
        thinking={thinking}
        onTakeControl={onTakeControl}
        notice={notice}
        replays={replays}
      />
      {running ? (
        <div className="chat-stop">
          <button type="button" className="stop-button" aria-label="Stop" title="Stop" onClick={stop}>
            <StopIcon />
          </button>
        </div>
      ) : (
        <ChatInput agentId={agent.id} disabled={disabled} onSend={send} />
      )}
    </div>
  );
}
