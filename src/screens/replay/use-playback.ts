// The replay's clock in React: playback-clock.ts's state, moved on every animation frame while playing, and
// the commands the controls and keys send. A hidden tab gets no frames; the clock then waits where it was
// (a frame's step is capped) instead of jumping ahead by the time away.
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  advance, applyCommand, INITIAL_CLOCK, seek, togglePlay, type ClockState, type Command, type Speed, type Timeline,
} from './playback-clock.ts';

/** The longest step one frame moves the clock (ms of real time). */
const MAX_FRAME_MS = 250;

export type Frames = { request: (callback: (now: number) => void) => number; cancel: (id: number) => void };

const browserFrames: Frames = {
  request: (callback) => requestAnimationFrame(callback),
  cancel: (id) => cancelAnimationFrame(id),
};

export type Playback = {
  clock: ClockState;
  seekTo: (position: number) => void;
  /** Seeks to a marker (a click); ← and → then count from it. */
  goToMarker: (index: number) => void;
  toggle: () => void;
  pause: () => void;
  setSpeed: (speed: Speed) => void;
  setSkipIdle: (on: boolean) => void;
  /** Runs a key's command; returns the marker it went to (← / →), if any. */
  command: (command: Command) => number | null;
};

export function usePlayback(timeline: Timeline, frames: Frames = browserFrames): Playback {
  const [clock, setClock] = useState<ClockState>(INITIAL_CLOCK);
  // Commands read the latest clock and timeline without being made again on every frame.
  const latest = useRef({ clock, timeline });
  latest.current = { clock, timeline };
  /** The marker last gone to, until the playhead is moved some other way (playback-clock.ts: previousMarkerIndex). */
  const anchor = useRef<number | null>(null);

  useEffect(() => {
    if (!clock.playing) return;
    let last: number | null = null;
    let id = 0;
    const tick = (now: number) => {
      const elapsed = last === null ? 0 : Math.min(now - last, MAX_FRAME_MS);
      last = now;
      setClock((c) => advance(c, elapsed, latest.current.timeline));
      id = frames.request(tick);
    };
    id = frames.request(tick);
    return () => frames.cancel(id);
  }, [clock.playing, frames]);

  const update = useCallback((change: (c: ClockState, t: Timeline) => ClockState) => {
    const next = change(latest.current.clock, latest.current.timeline);
    latest.current = { ...latest.current, clock: next };
    setClock(next);
  }, []);

  return {
    clock,
    seekTo: useCallback((position: number) => {
      anchor.current = null;
      update((c, t) => seek(c, position, t));
    }, [update]),
    goToMarker: useCallback((index: number) => {
      const marker = latest.current.timeline.markers[index];
      if (!marker) return;
      anchor.current = index;
      update((c, t) => seek(c, marker.at_ms, t));
    }, [update]),
    toggle: useCallback(() => update(togglePlay), [update]),
    pause: useCallback(() => update((c) => ({ ...c, playing: false })), [update]),
    setSpeed: useCallback((speed: Speed) => update((c) => ({ ...c, speed })), [update]),
    setSkipIdle: useCallback((skipIdle: boolean) => update((c) => ({ ...c, skipIdle })), [update]),
    command: useCallback((command: Command) => {
      const result = applyCommand(latest.current.clock, command, latest.current.timeline, anchor.current);
      if (result.marker !== null) anchor.current = result.marker;
      else if (command === 'back' || command === 'forward' || command === 'previous') anchor.current = null;
      update(() => result.state);
      return result.marker;
    }, [update]),
  };
}
