// The 'Trace #{id}' modal (spec §2): a summary line, tabs parameters, request and response as
// pretty JSON (the response tab also renders its content items readably), and a Close button.
// Shared by the agent screen's traces panel and the LLM Traces page (which opens it on response).
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { tracePath, type Trace } from '../../../lib/traces-api.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { Modal } from '../../../ui/modal.tsx';
import { formatCost, formatDateTime, formatLatency, formatTokens, NO_DATA, prettyJson } from './format.ts';
import { TraceContent } from './trace-content.tsx';

export type TraceTab = 'parameters' | 'request' | 'response';
const TABS: readonly TraceTab[] = ['parameters', 'request', 'response'];

/** Traces never change once written: cache them for the visit and skip focus revalidation. */
export const TRACE_RESOURCE = { freshFor: Number.POSITIVE_INFINITY, revalidateOnFocus: false } as const;

type TraceModalProps = {
  traceId: number;
  initialTab?: TraceTab;
  onClose: () => void;
  /** Names the model the server reports as offline, so it can be labelled. */
  offlineModel?: string | null;
};

export function TraceModal({ traceId, initialTab = 'parameters', onClose, offlineModel }: TraceModalProps) {
  const { data, error } = useResource<Trace>(tracePath(traceId), TRACE_RESOURCE);
  const [tab, setTab] = useState<TraceTab>(initialTab);
  const baseId = useId();

  return (
    <Modal
      title={`Trace #${traceId}`}
      onClose={onClose}
      size="large"
      footer={<button type="button" className="button" onClick={onClose}>Close</button>}
    >
      {error && <p className="form-error" role="alert">{error.detail}</p>}
      {!data && !error && (
        <p className="trace-modal-loading muted" role="status"><span className="spinner trace-spinner" aria-hidden="true" /> Loading trace…</p>
      )}
      {data && (
        <div className="trace-modal">
          <TraceSummary trace={data} offlineModel={offlineModel} />
          <TabList active={tab} onChange={setTab} baseId={baseId} />
          <div
            className="trace-tab-panel"
            role="tabpanel"
            id={`${baseId}-panel-${tab}`}
            aria-labelledby={`${baseId}-tab-${tab}`}
            tabIndex={0}
          >
            {tab === 'response' && data.response?.content && (
              <section className="trace-response-readable" aria-label="Response content">
                <TraceContent response={data.response} />
              </section>
            )}
            {tab === 'response' && data.response?.content ? (
              <details className="trace-raw">
                <summary>Raw JSON</summary>
                <pre className="trace-json">{prettyJson(data.response)}</pre>
              </details>
            ) : (
              <pre className="trace-json">{prettyJson(data[tab])}</pre>
            )}
          </div>
        </div>
      )}
    </Modal>
  );
}

function TraceSummary({ trace, offlineModel }: { trace: Trace; offlineModel?: string | null }) {
  const offline = !!offlineModel && trace.model === offlineModel;
  return (
    <dl className="trace-summary">
      <div><dt>Model</dt><dd>{trace.model || NO_DATA}{offline && <> <span className="badge trace-offline">Offline model</span></>}</dd></div>
      <div><dt>Thread</dt><dd>{trace.thread_name || NO_DATA}</dd></div>
      <div><dt>Time</dt><dd>{formatDateTime(trace.created_at)}</dd></div>
      <div><dt>In / Out / Cache</dt><dd>{formatTokens(trace.input_tokens)} / {formatTokens(trace.output_tokens)} / {formatTokens(trace.cache_read_tokens)}</dd></div>
      <div><dt>Cost</dt><dd>{formatCost(trace.estimated_cost)}</dd></div>
      <div><dt>Latency</dt><dd>{formatLatency(trace.latency)}</dd></div>
    </dl>
  );
}

// WAI-ARIA tabs with automatic activation (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/).
function TabList({ active, onChange, baseId }: { active: TraceTab; onChange: (tab: TraceTab) => void; baseId: string }) {
  const refs = useRef(new Map<TraceTab, HTMLButtonElement>());
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TABS.indexOf(active);
    const last = TABS.length - 1;
    const next =
      event.key === 'ArrowRight' ? (index === last ? 0 : index + 1)
      : event.key === 'ArrowLeft' ? (index === 0 ? last : index - 1)
      : event.key === 'Home' ? 0
      : event.key === 'End' ? last
      : -1;
    if (next < 0) return;
    event.preventDefault();
    onChange(TABS[next]);
    refs.current.get(TABS[next])?.focus();
  };
  return (
    <div className="trace-tabs" role="tablist" aria-label="Trace parts" onKeyDown={onKeyDown}>
      {TABS.map((key) => (
        <button
          key={key}
          ref={(el) => {
            if (el) refs.current.set(key, el);
            else refs.current.delete(key);
          }}
          type="button"
          role="tab"
          id={`${baseId}-tab-${key}`}
          className="trace-tab"
          aria-selected={key === active}
          aria-controls={`${baseId}-panel-${key}`}
          tabIndex={key === active ? 0 : -1}
          onClick={() => onChange(key)}
        >
          {key}
        </button>
      ))}
    </div>
  );
}
