// One trace in the panel: a toggle with id, Main/Sub marker, model, time, tokens, cost and latency,
// a button for the 'Trace #{id}' modal, and when expanded the response content. Rows first loaded
// without bodies (verbose=false) fetch their trace when expanded.
import { useId } from 'react';
import { tracePath, type Trace } from '../../../lib/traces-api.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { ChevronRightIcon, OpenIcon } from '../../../ui/icons.tsx';
import { formatCost, formatLatency, formatTime, formatTokens, NO_DATA, threadMarker } from '../../../ui/trace-format.ts';
import { TraceContent } from '../../../ui/trace-content.tsx';
import { TRACE_RESOURCE } from '../../../ui/trace-modal.tsx';

type TraceRowProps = {
  trace: Trace;
  expanded: boolean;
  onToggle: (id: number) => void;
  onOpenDetails: (id: number) => void;
  offlineModel?: string | null;
};

export function TraceRow({ trace, expanded, onToggle, onOpenDetails, offlineModel }: TraceRowProps) {
  const bodyId = useId();
  const marker = threadMarker(trace.thread_name);
  return (
    <li className="trace-row" data-expanded={expanded || undefined} data-trace-id={trace.id}>
      <div className="trace-row-head">
        <button
          type="button"
          className="trace-row-toggle"
          aria-expanded={expanded}
          aria-controls={expanded ? bodyId : undefined}
          onClick={() => onToggle(trace.id)}
        >
          <span className="trace-row-line">
            <ChevronRightIcon className="trace-chevron" />
            <span className="trace-row-id">#{trace.id}</span>
            <span className="trace-marker" data-kind={marker?.toLowerCase()} title={trace.thread_name ?? undefined}>
              {marker ?? trace.thread_name ?? NO_DATA}
            </span>
            <span className="trace-row-model"
              title={offlineModel && trace.model === offlineModel ? `${trace.model} (offline model)` : (trace.model ?? undefined)}>
              {trace.model || NO_DATA}
            </span>
            <time className="trace-row-time" dateTime={trace.created_at}>{formatTime(trace.created_at)}</time>
          </span>
          <span className="trace-row-stats">
            <Stat label="In" value={formatTokens(trace.input_tokens)} />
            <Stat label="Out" value={formatTokens(trace.output_tokens)} />
            <Stat label="Cache" value={formatTokens(trace.cache_read_tokens)} />
            <Stat label="Cost" value={formatCost(trace.estimated_cost)} />
            <Stat label="Latency" value={formatLatency(trace.latency)} />
          </span>
        </button>
        <button
          type="button"
          className="icon-button trace-row-open"
          aria-label={`Details of trace #${trace.id}`}
          title="Details"
          onClick={() => onOpenDetails(trace.id)}
        >
          <OpenIcon />
        </button>
      </div>
      {expanded && (
        <div id={bodyId} className="trace-row-body">
          <RowBody trace={trace} />
        </div>
      )}
    </li>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <span className="trace-stat" data-missing={value === NO_DATA || undefined}>
      <span className="trace-stat-label">{label}</span> {value}
    </span>
  );
}

function RowBody({ trace }: { trace: Trace }) {
  const hasBody = 'response' in trace;
  const { data, error } = useResource<Trace>(hasBody ? null : tracePath(trace.id), TRACE_RESOURCE);
  if (hasBody) return <TraceContent response={trace.response} />;
  if (error) return <p className="error-text">{error.detail}</p>;
  if (!data) return <p className="muted" role="status"><span className="spinner trace-spinner" aria-hidden="true" /> Loading…</p>;
  return <TraceContent response={data.response} />;
}
