// One thread's traces for the panel (spec §7 "Traces", §9): the newest 100 without bodies, then a
// poll every second for newer ones with bodies (after_trace_id = last id), and older pages on demand
// (before_trace_id = first id). Poll errors are ignored (spec §8); polling pauses while the tab is hidden.
// Timers and visibility come from lib/environment.ts, as for useResource.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { env } from '../../../lib/environment.ts';
import { getThreadTraces, PANEL_PAGE_SIZE, TRACE_POLL_MS, type Trace } from '../../../lib/traces-api.ts';

export type ThreadTracesState = {
  status: 'loading' | 'error' | 'ready';
  /** Ascending by id. */
  traces: Trace[];
  /** Older traces exist on the server. */
  hasMore: boolean;
  loadingMore: boolean;
  loadMoreFailed: boolean;
};

type Options = {
  /** @default TRACE_POLL_MS */
  pollInterval?: number;
  /** Called with the traces a poll brought that were not there before (ascending). */
  onArrive?: (traces: Trace[]) => void;
};

const INITIAL: ThreadTracesState = { status: 'loading', traces: [], hasMore: false, loadingMore: false, loadMoreFailed: false };

/** Incoming records win over held ones: a verbose poll result replaces a bodiless first-load row. */
function merge(held: Trace[], incoming: Trace[]): Trace[] {
  const byId = new Map(held.map((t) => [t.id, t]));
  for (const trace of incoming) byId.set(trace.id, trace);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

export function useThreadTraces(threadId: number, options: Options = {}) {
  const pollInterval = options.pollInterval ?? TRACE_POLL_MS;
  const [state, setState] = useState<ThreadTracesState>(INITIAL);
  const [attempt, setAttempt] = useState(0);
  // The source of truth for cursors: effects and callbacks read it without waiting for a render.
  const held = useRef<Trace[]>([]);
  // Bumped on every (re)start, so answers meant for a previous thread or attempt are dropped.
  const generation = useRef(0);
  const onArrive = useRef(options.onArrive);
  useLayoutEffect(() => {
    onArrive.current = options.onArrive;
  });

  const commit = useCallback((traces: Trace[], patch: Partial<ThreadTracesState> = {}) => {
    held.current = traces;
    setState((s) => ({ ...s, ...patch, traces }));
  }, []);

  useEffect(() => {
    const gen = ++generation.current;
    const controller = new AbortController();
    const current = () => gen === generation.current;
    let timer: unknown;
    let polling = false;
    let started = false; // no polls before the first page has landed
    held.current = [];
    setState(INITIAL);

    // Chained timeouts, not setInterval: the next poll waits for the current one to settle.
    const schedule = () => {
      env.clearTimeout(timer);
      timer = current() && env.isVisible() ? env.setTimeout(poll, pollInterval) : undefined;
    };
    const poll = async () => {
      timer = undefined;
      // A tick that fires just after the tab went hidden waits for visibilitychange instead.
      if (!current() || polling || !env.isVisible()) return;
      polling = true;
      try {
        const after = held.current.at(-1)?.id ?? 0;
        const page = await getThreadTraces(threadId, { after_trace_id: after, limit: PANEL_PAGE_SIZE, verbose: true }, controller.signal);
        if (current() && page.traces.length > 0) {
          const known = new Set(held.current.map((t) => t.id));
          const fresh = page.traces.filter((t) => !known.has(t.id)).sort((a, b) => a.id - b.id);
          commit(merge(held.current, page.traces));
          if (fresh.length > 0) onArrive.current?.(fresh);
        }
      } catch {
        // Spec §8: trace polling errors are ignored silently; the next tick tries again.
      } finally {
        polling = false;
      }
      schedule();
    };

    getThreadTraces(threadId, { limit: PANEL_PAGE_SIZE, verbose: false }, controller.signal).then(
      (page) => {
        if (!current()) return;
        const traces = merge([], page.traces);
        held.current = traces;
        setState({ ...INITIAL, status: 'ready', traces, hasMore: page.has_more });
        started = true;
        schedule();
      },
      () => {
        if (current()) setState({ ...INITIAL, status: 'error' });
      },
    );
    const stopListening = env.onVisibilityChange(() => {
      if (env.isVisible() && timer === undefined && !polling && started) void poll();
    });
    return () => {
      generation.current++;
      env.clearTimeout(timer);
      controller.abort();
      stopListening();
    };
  }, [threadId, attempt, pollInterval, commit]);

  const loadMore = useCallback(async () => {
    const first = held.current[0]?.id;
    if (first === undefined) return;
    const gen = generation.current;
    setState((s) => ({ ...s, loadingMore: true, loadMoreFailed: false }));
    try {
      const page = await getThreadTraces(threadId, { before_trace_id: first, limit: PANEL_PAGE_SIZE, verbose: false });
      if (gen !== generation.current) return;
      commit(merge(page.traces, held.current), { hasMore: page.has_more, loadingMore: false });
    } catch {
      if (gen === generation.current) setState((s) => ({ ...s, loadingMore: false, loadMoreFailed: true }));
    }
  }, [threadId, commit]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  return { ...state, loadMore, retry };
}
