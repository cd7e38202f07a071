// The scrub bar: the run's length as a track with its idle stretches shaded, the markers placed by time and
// coloured by kind, what has played, and the playhead. Clicking or dragging seeks; clicking a marker seeks to
// it and opens its detail. To assistive technology it is one slider (its arrows step through the markers, as
// the replay's keys do; Home and End go to the ends); the markers are reached in the marker list.
import { memo, useRef, type KeyboardEvent, type MouseEvent, type PointerEvent } from 'react';
import type { IdleSpan, ReplayMarker } from '../../lib/replay-api.ts';
import { formatClock } from './playback-clock.ts';
import { kindLabel } from './marker-kinds.ts';

type ScrubBarProps = {
  duration: number;
  position: number;
  markers: readonly ReplayMarker[];
  idle: readonly IdleSpan[];
  /** The marker that is playing (highlighted). */
  current: number;
  onSeek: (position: number) => void;
  onMarker: (index: number) => void;
};

/** Where `ms` sits along the bar, in per cent (0 for an empty run). */
export const percentAt = (ms: number, duration: number) => (duration > 0 ? Math.min(100, Math.max(0, (ms / duration) * 100)) : 0);

export function ScrubBar({ duration, position, markers, idle, current, onSeek, onMarker }: ScrubBarProps) {
  const bar = useRef<HTMLDivElement>(null);
  const dragging = useRef<number | null>(null);
  /** The press seeked already: its click does not again (a pointer's x is fractional, a click's whole: two seeks). */
  const pressed = useRef(false);

  const positionAt = (clientX: number) => {
    const rect = bar.current!.getBoundingClientRect();
    if (!(rect.width > 0)) return 0;
    return (Math.min(Math.max(0, clientX - rect.left), rect.width) / rect.width) * duration;
  };
  const markerOf = (target: EventTarget) => (target instanceof Element ? target.closest<HTMLElement>('[data-marker]') : null);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0 || markerOf(event.target)) return;
    dragging.current = event.pointerId;
    pressed.current = true;
    event.currentTarget.setPointerCapture?.(event.pointerId);
    onSeek(positionAt(event.clientX));
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (dragging.current === event.pointerId) onSeek(positionAt(event.clientX));
  };
  const endDrag = () => {
    dragging.current = null;
  };
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const marker = markerOf(event.target);
    if (marker) onMarker(Number(marker.dataset.marker));
    else if (!pressed.current) onSeek(positionAt(event.clientX));
    pressed.current = false;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    onSeek(event.key === 'Home' ? 0 : duration);
  };

  const played = percentAt(position, duration);
  return (
    <div
      ref={bar}
      className="scrub-bar"
      role="slider"
      tabIndex={0}
      aria-label="Playback position"
      aria-valuemin={0}
      aria-valuemax={Math.round(duration / 1000)}
      aria-valuenow={Math.round(position / 1000)}
      aria-valuetext={`${formatClock(position)} of ${formatClock(duration)}`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={endDrag}
      onPointerCancel={endDrag}
      onClick={onClick}
      onKeyDown={onKeyDown}
    >
      <div className="scrub-track">
        {idle.map((span) => (
          <span
            key={span.from_ms}
            className="scrub-idle"
            style={{ left: `${percentAt(span.from_ms, duration)}%`, width: `${percentAt(span.to_ms - span.from_ms, duration)}%` }}
          />
        ))}
        <span className="scrub-played" style={{ width: `${played}%` }} />
      </div>
      <ScrubMarkers markers={markers} duration={duration} current={current} />
      <span className="scrub-playhead" style={{ left: `${played}%` }} />
    </div>
  );
}

/** The markers change only with the run, so a moving playhead does not redraw them. */
const ScrubMarkers = memo(function ScrubMarkers({ markers, duration, current }: { markers: readonly ReplayMarker[]; duration: number; current: number }) {
  return (
    <div className="scrub-markers">
      {markers.map((marker, index) => (
        <span
          key={index}
          className="scrub-marker"
          data-marker={index}
          data-kind={marker.kind}
          data-current={index === current || undefined}
          style={{ left: `${percentAt(marker.at_ms, duration)}%` }}
          title={`${formatClock(marker.at_ms)} · ${kindLabel(marker.kind)}: ${marker.label}`}
        />
      ))}
    </div>
  );
});
