// The LLM Traces panel of the agent screen (spec §2): 360px wide, a 'Single expand' checkbox
// (default on), the selected thread's traces oldest first with new ones polled in and auto-expanded,
// 'Load more' at the top for older ones, and the 'Trace #{id}' modal from each row.
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { modelStatusPath, type ModelStatus, type Trace } from '../../../lib/traces-api.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { CloseIcon } from '../../../ui/icons.tsx';
import { TraceModal } from '../../../ui/trace-modal.tsx';
import { TraceRow } from './trace-row.tsx';
import { useThreadTraces } from './use-thread-traces.ts';

type TracesPanelProps = {
  threadId: number | null;
  /** ms between polls; tests shorten it. @default TRACE_POLL_MS */
  pollInterval?: number;
  /** Shows a close button in the header (the agent screen's 'Show traces' turns the panel off with it). */
  onClose?: () => void;
};

/** The model status changes only with a server restart. */
const MODEL_STATUS = { freshFor: 5 * 60_000, revalidateOnFocus: false } as const;

export function TracesPanel({ threadId, pollInterval, onClose }: TracesPanelProps) {
  const [singleExpand, setSingleExpand] = useState(true);
  const { data: status } = useResource<ModelStatus>(modelStatusPath, MODEL_STATUS);
  const offlineModel = status?.offline ? status.model : null;
  return (
    <aside className="traces-panel" aria-label="LLM traces">
      <header className="traces-panel-header">
        <h2 className="traces-panel-title">LLM Traces</h2>
        {/* The panel is narrow: a short label here, the full 'Offline model' in the trace modal. */}
        {offlineModel && <span className="badge trace-offline" title={`Offline model: ${offlineModel}`}>Offline</span>}
        <label className="traces-single">
          <input type="checkbox" checked={singleExpand} onChange={(e) => setSingleExpand(e.target.checked)} />
          Single expand
        </label>
        {onClose && (
          <button type="button" className="icon-button" onClick={onClose} aria-label="Hide traces" title="Hide traces">
            <CloseIcon size={18} />
          </button>
        )}
      </header>
      {threadId === null ? (
        <p className="traces-panel-message">Select a thread to view traces.</p>
      ) : (
        // Keyed by thread: a new thread starts from a clean list, cursors and expansion.
        <ThreadTraceList key={threadId} threadId={threadId} singleExpand={singleExpand} pollInterval={pollInterval} offlineModel={offlineModel} />
      )}
    </aside>
  );
}

type ListProps = { threadId: number; singleExpand: boolean; pollInterval?: number; offlineModel: string | null };

/** Pixels from an edge that still count as being at it. */
const EDGE = 8;

function ThreadTraceList({ threadId, singleExpand, pollInterval, offlineModel }: ListProps) {
  // Open rows in the order they were opened, so turning single expand on keeps the latest one.
  const [expanded, setExpanded] = useState<number[]>([]);
  const [detailsId, setDetailsId] = useState<number | null>(null);
  const [atTop, setAtTop] = useState(true);
  const list = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const heightBeforePrepend = useRef<number | null>(null);
  const single = useRef(singleExpand);
  single.current = singleExpand;

  const onArrive = useCallback((fresh: Trace[]) => {
    const ids = fresh.map((t) => t.id);
    setExpanded((open) => (single.current ? ids.slice(-1) : [...open.filter((id) => !ids.includes(id)), ...ids]));
  }, []);
  const { status, traces, hasMore, loadingMore, loadMoreFailed, loadMore, retry } = useThreadTraces(threadId, { pollInterval, onArrive });

  const shown = singleExpand ? expanded.slice(-1) : expanded;
  const toggle = (id: number) =>
    setExpanded((open) => {
      const visible = singleExpand ? open.slice(-1) : open;
      return visible.includes(id) ? visible.filter((x) => x !== id) : [...visible, id].slice(singleExpand ? -1 : 0);
    });

  const onScroll = () => {
    const el = list.current;
    if (!el) return;
    setAtTop(el.scrollTop <= EDGE);
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= EDGE * 3;
  };

  const more = () => {
    heightBeforePrepend.current = list.current?.scrollHeight ?? null;
    void loadMore();
  };

  // Older rows go on top without moving what is on screen; new rows keep a list that was at the bottom there.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    if (heightBeforePrepend.current !== null) {
      el.scrollTop += el.scrollHeight - heightBeforePrepend.current;
      heightBeforePrepend.current = null;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
    setAtTop(el.scrollTop <= EDGE);
  }, [traces]);

  if (status === 'loading') {
    return <p className="traces-panel-message" role="status"><span className="spinner trace-spinner" aria-hidden="true" /> Loading traces…</p>;
  }
  if (status === 'error') {
    return (
      <div className="traces-panel-message">
        <p className="error-text" role="alert">Failed to load traces.</p>
        <button type="button" className="button button-small" onClick={retry}>Retry</button>
      </div>
    );
  }
  return (
    <>
      <div ref={list} className="traces-list" onScroll={onScroll}>
        {atTop && hasMore && (
          <div className="traces-load-more">
            <button type="button" className="button button-small" onClick={more} disabled={loadingMore}>
              {loadingMore && <span className="spinner trace-spinner" aria-hidden="true" />}
              Load more
            </button>
            {loadMoreFailed && <p className="error-text" role="alert">Failed to load traces.</p>}
          </div>
        )}
        {traces.length === 0 ? (
          <p className="traces-panel-message">No traces found.</p>
        ) : (
          <ol className="trace-rows" aria-label="Traces">
            {traces.map((trace) => (
              <TraceRow
                key={trace.id}
                trace={trace}
                expanded={shown.includes(trace.id)}
                onToggle={toggle}
                onOpenDetails={setDetailsId}
                offlineModel={offlineModel}
              />
            ))}
          </ol>
        )}
      </div>
      {detailsId !== null && <TraceModal traceId={detailsId} onClose={() => setDetailsId(null)} offlineModel={offlineModel} />}
    </>
  );
}
