// What a marker stands for, opened from the scrub bar or the list: a model call's request and response (the
// trace view of the traces pages), a tool action's input, or the text of a message, help request, take-over,
// approval, guard pause or error. Read once per marker: what happened in a run does not change.
import { useId } from 'react';
import { markerPath, replayFetcher, type ActionDetail, type MarkerDetail as Detail, type ReplaySource } from '../../lib/replay-api.ts';
import type { Trace } from '../../lib/traces-api.ts';
import { useResource } from '../../lib/use-resource.ts';
import { CloseIcon } from '../../ui/icons.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { NO_DATA, prettyJson } from '../../ui/trace-format.ts';
import { TraceView } from '../../ui/trace-modal.tsx';
import { kindLabel } from './marker-kinds.ts';
import { formatClock } from './playback-clock.ts';

const ONCE = { freshFor: Number.POSITIVE_INFINITY, revalidateOnFocus: false } as const;

type MarkerDetailProps = { source: ReplaySource; index: number; onClose: () => void };

export function MarkerDetail({ source, index, onClose }: MarkerDetailProps) {
  const { data, error } = useResource<Detail>(markerPath(source, index), { ...ONCE, fetcher: replayFetcher<Detail>(source) });
  const titleId = useId();
  return (
    <section className="marker-detail" aria-labelledby={titleId} data-kind={data?.kind}>
      <header className="marker-detail-header">
        <h3 id={titleId}>
          {data ? `${kindLabel(data.kind)} at ${formatClock(data.at_ms)}` : `Marker ${index + 1}`}
        </h3>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close marker detail">
          <CloseIcon />
        </button>
      </header>
      {error && <p className="form-error" role="alert">{error.detail}</p>}
      {!data && !error && <Spinner label="Loading marker" />}
      {data && (
        <>
          {data.label && <p className="marker-detail-label">{data.label}</p>}
          <DetailBody detail={data} />
        </>
      )}
    </section>
  );
}

function DetailBody({ detail: marker }: { detail: Detail }) {
  const detail = marker.detail;
  if (detail && 'trace' in detail && detail.trace) return <TraceView trace={detail.trace as Trace} initialTab="response" />;
  if (detail && 'input' in detail && detail.input) return <ActionView detail={detail} />;
  if (detail && 'text' in detail && typeof detail.text === 'string') return <p className="marker-detail-text">{detail.text || NO_DATA}</p>;
  return <pre className="trace-json">{prettyJson(detail)}</pre>;
}

/** A tool call: its tool and kind of action, where and what it typed, any other input as JSON, how it ended. */
function ActionView({ detail }: { detail: ActionDetail }) {
  const { action, coordinate, text, ...rest } = detail.input;
  const others = Object.keys(rest).length > 0 ? rest : null;
  return (
    <dl className="marker-action">
      {detail.name && <div><dt>Tool</dt><dd><code>{detail.name}</code></dd></div>}
      {action !== undefined && <div><dt>Action</dt><dd><code>{action || NO_DATA}</code></dd></div>}
      {Array.isArray(coordinate) && <div><dt>At</dt><dd>{coordinate.join(', ')}</dd></div>}
      {typeof text === 'string' && <div><dt>Text</dt><dd className="marker-action-text">{text}</dd></div>}
      {others && <div><dt>Input</dt><dd><pre className="trace-json">{prettyJson(others)}</pre></dd></div>}
      {detail.step_sequence != null && <div><dt>Step</dt><dd>#{detail.step_sequence}</dd></div>}
      {detail.status && <div><dt>Status</dt><dd>{detail.status}</dd></div>}
      {detail.output && <div><dt>Output</dt><dd className="marker-action-text">{detail.output}</dd></div>}
    </dl>
  );
}
