// The run's markers as a list beside the playback: time, kind and label of each, a button that seeks there and
// opens its detail. The current one (the last at or before the playhead) is highlighted and kept in view by
// scrolling the list itself, never the page (which would jump under the reader while it plays).
import { memo, useEffect, useRef } from 'react';
import type { ReplayMarker } from '../../lib/replay-api.ts';
import { formatClock } from './playback-clock.ts';
import { kindLabel } from './marker-kinds.ts';

type MarkerListProps = {
  markers: readonly ReplayMarker[];
  current: number;
  /** The marker whose detail is open. */
  opened: number | null;
  onSelect: (index: number) => void;
};

export const MarkerList = memo(function MarkerList({ markers, current, opened, onSelect }: MarkerListProps) {
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const box = list.current;
    const item = box?.querySelector<HTMLElement>(`[data-index="${current}"]`);
    if (!box || !item) return;
    const top = item.offsetTop;
    const bottom = top + item.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }, [current]);

  if (markers.length === 0) return <p className="marker-list-empty muted">No markers in this run.</p>;
  return (
    <ol ref={list} className="marker-list" aria-label="Markers">
      {markers.map((marker, index) => (
        <li key={index} data-index={index}>
          <button
            type="button"
            className="marker-item"
            data-kind={marker.kind}
            aria-current={index === current ? 'step' : undefined}
            data-opened={index === opened || undefined}
            onClick={() => onSelect(index)}
          >
            <time className="marker-time">{formatClock(marker.at_ms)}</time>
            <span className="marker-kind">{kindLabel(marker.kind)}</span>
            <span className="marker-label">{marker.label}</span>
          </button>
        </li>
      ))}
    </ol>
  );
});
