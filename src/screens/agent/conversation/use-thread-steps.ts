// Steps of the selected thread: loaded over HTTP when the thread is selected (500 newest, spec §9; 100
// right after creation), then kept current by the thread hub. Arriving steps are inserted or replaced by
// sequence; once the hub is joined (and after each reconnect) the page is loaded again, since steps may have been
// written before the join.
import { useCallback, useEffect, useRef, useState } from 'react';
import { getSteps, STEPS_AFTER_CREATE, STEPS_FIRST_LOAD } from '../../../lib/api.ts';
import { connectThreadHub } from '../../../lib/thread-hub.ts';
import type { Step } from '../../../lib/types.ts';
import { mergeSteps, upsertStep } from './steps.ts';

export type ThreadSteps = {
  steps: Step[];
  /** The selected thread's steps have not arrived yet. */
  isLoading: boolean;
  /** Puts a step we wrote ourselves in place without waiting for the hub. */
  upsert: (threadId: number, step: Step) => void;
  /** Loads a thread just created from a draft (limit 100); its selection then does not load again. */
  loadAfterCreate: (threadId: number) => void;
};

export function useThreadSteps(threadId: number | null, { onStepArrived }: { onStepArrived: () => void }): ThreadSteps {
  const [byThread, setByThread] = useState<Record<number, Step[]>>({});
  const justCreated = useRef<number | null>(null);
  const arrived = useRef(onStepArrived);
  arrived.current = onStepArrived;

  const update = useCallback((id: number, change: (steps: Step[]) => Step[]) => {
    setByThread((all) => ({ ...all, [id]: change(all[id] ?? []) }));
  }, []);

  const load = useCallback(async (id: number, limit: number) => {
    try {
      const page = await getSteps(id, limit, 0);
      update(id, (current) => mergeSteps(current, page.steps));
    } catch (error) {
      console.warn(`Failed to load the steps of thread ${id}`, error); // spec §8: logged only
      update(id, (current) => current); // ends 'Loading messages...'
    }
  }, [update]);

  useEffect(() => {
    if (threadId === null) return;
    if (justCreated.current === threadId) {
      justCreated.current = null;
      return;
    }
    void load(threadId, STEPS_FIRST_LOAD);
  }, [threadId, load]);

  useEffect(() => {
    if (threadId === null) return;
    const hub = connectThreadHub(threadId, {
      onStep: (step) => {
        update(threadId, (steps) => upsertStep(steps, step));
        arrived.current();
      },
      // The thread waits for a person, or no more: the agent (and its threads) are fetched again.
      onThread: () => arrived.current(),
      // Loaded again once joined, the first time too: a step written between the page's load and the join (a
      // new thread's first answer, which the offline model gives at once) reaches no socket and was lost.
      onJoin: () => void load(threadId, STEPS_FIRST_LOAD),
    });
    return () => hub.close();
  }, [threadId, update, load]);

  const upsert = useCallback((id: number, step: Step) => update(id, (steps) => upsertStep(steps, step)), [update]);
  const loadAfterCreate = useCallback((id: number) => {
    justCreated.current = id;
    void load(id, STEPS_AFTER_CREATE);
  }, [load]);

  return {
    steps: threadId === null ? [] : (byThread[threadId] ?? []),
    isLoading: threadId !== null && !(threadId in byThread),
    upsert,
    loadAfterCreate,
  };
}
