// The 'Trace #{id}' modal (spec §2): a summary line, tabs parameters, request and response as
// pretty JSON (the response tab also renders its content items readably), a "Watch replay" link when the
// call belongs to a recorded run, and a Close button. Shared by the agent screen's traces panel and the LLM
// Traces page (which opens it on response); the replay's marker detail shows a trace with TraceView alone.
import { useId, useState } from 'react';
import { Link } from '../lib/router.ts';
import { tracePath, type Trace } from '../lib/traces-api.ts';
import { useResource } from '../lib/use-resource.ts';
import { Modal } from './modal.tsx';
import { Tabs, type Tab } from './tabs.tsx';
import { formatCost, formatDateTime, formatLatency, formatTokens, NO_DATA, prettyJson } from './trace-format.ts';
import { TraceContent } from './trace-content.tsx';

export type TraceTab = 'parameters' | 'request' | 'response';
const TABS: readonly Tab<TraceTab>[] = (['parameters', 'request', 'response'] as const).map((key) => ({ key, label: key }));

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
  const runId = data?.run_id;

  return (
    <Modal
      title={`Trace #${traceId}`}
      onClose={onClose}
      size="large"
      footer={
        <>
          {runId != null && <Link className="trace-replay-link" href={`/replay/${runId}`}>Watch replay</Link>}
          <button type="button" className="button" onClick={onClose}>Close</button>
        </>
      }
    >
      {error && <p className="form-error" role="alert">{error.detail}</p>}
      {!data && !error && (
        <p className="trace-modal-loading muted" role="status"><span className="spinner trace-spinner" aria-hidden="true" /> Loading trace…</p>
      )}
      {data && <TraceView trace={data} initialTab={initialTab} offlineModel={offlineModel} />}
    </Modal>
  );
}

type TraceViewProps = { trace: Trace; initialTab?: TraceTab; offlineModel?: string | null };

/** A trace's summary and its parameters / request / response tabs. */
export function TraceView({ trace, initialTab = 'parameters', offlineModel }: TraceViewProps) {
  const [tab, setTab] = useState<TraceTab>(initialTab);
  const baseId = useId();
  return (
    <div className="trace-modal">
      <TraceSummary trace={trace} offlineModel={offlineModel} />
      <Tabs
        tabs={TABS}
        active={tab}
        onChange={setTab}
        tabId={(key) => `${baseId}-tab-${key}`}
        panelId={(key) => `${baseId}-panel-${key}`}
        label="Trace parts"
        listClass="trace-tabs"
        tabClass="trace-tab"
      />
      <div
        className="trace-tab-panel"
        role="tabpanel"
        id={`${baseId}-panel-${tab}`}
        aria-labelledby={`${baseId}-tab-${tab}`}
        tabIndex={0}
      >
        {tab === 'response' && trace.response?.content && (
          <section className="trace-response-readable" aria-label="Response content">
            <TraceContent response={trace.response} />
          </section>
        )}
        {tab === 'response' && trace.response?.content ? (
          <details className="trace-raw">
            <summary>Raw JSON</summary>
            <pre className="trace-json">{prettyJson(trace.response)}</pre>
          </details>
        ) : (
          <pre className="trace-json">{prettyJson(trace[tab])}</pre>
        )}
      </div>
    </div>
  );
}

function TraceSummary({ trace, offlineModel }: { trace: Trace; offlineModel?: string | null }) {
  const offline = !!offlineModel && trace.model === offlineModel;
  return (
    <dl className="trace-summary">
      <div><dt>Model</dt><dd>{trace.model || NO_DATA}{offline && <> <span className="badge trace-offline">Offline model</span></>}</dd></div>
      <div><dt>Thread</dt><dd>{trace.thread_name || NO_DATA}</dd></div>
      <div><dt>Time</dt><dd>{formatDateTime(trace.created_at)}</dd></div>
      <div>
        <dt>In / Out / Cache</dt>
        <dd>{formatTokens(trace.input_tokens)} / {formatTokens(trace.output_tokens)} / {formatTokens(trace.cache_read_tokens)}</dd>
      </div>
      <div><dt>Cost</dt><dd>{formatCost(trace.estimated_cost)}</dd></div>
      <div><dt>Latency</dt><dd>{formatLatency(trace.latency)}</dd></div>
    </dl>
  );
}
