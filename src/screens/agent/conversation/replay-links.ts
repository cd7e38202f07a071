// The thread's "Watch replay" links: the first step of each run (a step whose run differs from the step before
// it) links to that run's replay when the run has one. The thread's runs are asked for only once its steps name
// a run, and again only when a new run shows up in them or the thread stops running (when a recording is done).
import { useEffect, useMemo, useRef } from 'react';
import { threadRunsPath, type RunSummary } from '../../../lib/replay-api.ts';
import type { Step } from '../../../lib/types.ts';
import { useResource } from '../../../lib/use-resource.ts';

/** Sequence of each step that starts a run → that run's id. Steps are in ascending order. */
export function runStarts(steps: readonly Pick<Step, 'sequence' | 'run_id'>[]): Map<number, number> {
  const starts = new Map<number, number>();
  let previous: number | null = null;
  for (const step of steps) {
    const run = step.run_id ?? null;
    if (run !== null && run !== previous) starts.set(step.sequence, run);
    previous = run;
  }
  return starts;
}

const RUNS = { revalidateOnFocus: false } as const;

/** Sequence → run id, for the steps that get a "Watch replay" link. */
export function useReplayLinks(threadId: number | null, steps: readonly Step[], running: boolean): ReadonlyMap<number, number> {
  const starts = useMemo(() => runStarts(steps), [steps]);
  const key = threadId !== null && starts.size > 0 ? threadRunsPath(threadId) : null;
  const { data: runs, mutate } = useResource<RunSummary[]>(key, RUNS);

  const signature = `${key}|${[...new Set(starts.values())].join(',')}|${running}`;
  const seen = useRef({ key, signature });
  useEffect(() => {
    const before = seen.current;
    seen.current = { key, signature };
    // A new key is fetched by useResource itself; the same thread with a new run or a stop is asked again.
    if (key !== null && before.key === key && before.signature !== signature) void mutate();
  }, [key, signature, mutate]);

  return useMemo(() => {
    const replayable = new Set((runs ?? []).filter((run) => run.has_replay).map((run) => run.id));
    return new Map([...starts].filter(([, run]) => replayable.has(run)));
  }, [starts, runs]);
}
