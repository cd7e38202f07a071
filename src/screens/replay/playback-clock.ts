// The replay's clock as pure functions: where the playhead is after some real time at a speed, skipping
// idle stretches when asked; which marker is current; the previous and next marker; what the keys do
// (←/→ markers, space and K play/pause, J and L 10 s back and forward, as on YouTube). Positions are ms
// in the markers' time base (from the run's start). Knows nothing of the recording or of React.

export const SPEEDS = [0.5, 1, 2, 4, 8] as const;
export type Speed = (typeof SPEEDS)[number];

/** J and L move the playhead this far. */
export const JUMP_MS = 10_000;
/** While playing, ← this soon (at 1×) after a marker goes to the one before it, as a player's "previous track" does. */
export const PREVIOUS_GRACE_MS = 1_000;

export type ClockState = { position: number; playing: boolean; speed: Speed; skipIdle: boolean };
export type Timeline = {
  duration: number;
  idle: readonly { from_ms: number; to_ms: number }[];
  markers: readonly { at_ms: number }[];
};

export const INITIAL_CLOCK: ClockState = { position: 0, playing: false, speed: 1, skipIdle: false };

export const clamp = (position: number, duration: number) => Math.min(Math.max(0, position), Math.max(0, duration));

/** The end of the idle stretch `position` lies in (stretches may touch or chain), else `position`. */
export function outOfIdle(position: number, idle: Timeline['idle']): number {
  let at = position;
  for (let moved = true; moved;) {
    moved = false;
    for (const span of idle) {
      if (span.from_ms <= at && at < span.to_ms) {
        at = span.to_ms;
        moved = true;
      }
    }
  }
  return at;
}

/** The clock after `elapsedMs` of real time: it moves at its speed, over idle stretches when skipping, and stops at the end. */
export function advance(state: ClockState, elapsedMs: number, timeline: Timeline): ClockState {
  if (!state.playing || !(elapsedMs > 0)) return state;
  let position = state.position + elapsedMs * state.speed;
  if (state.skipIdle) position = outOfIdle(position, timeline.idle);
  if (position >= timeline.duration) return { ...state, position: Math.max(0, timeline.duration), playing: false };
  return { ...state, position };
}

/** Moves the playhead; playing goes on from there. */
export const seek = (state: ClockState, position: number, timeline: Timeline): ClockState => ({
  ...state,
  position: clamp(position, timeline.duration),
});

/** Play from where it stands, or from the start when it stands at the end (skipping idle at once when asked). */
export function togglePlay(state: ClockState, timeline: Timeline): ClockState {
  if (state.playing) return { ...state, playing: false };
  if (timeline.duration <= 0) return state;
  const from = state.position >= timeline.duration ? 0 : state.position;
  const position = state.skipIdle ? Math.min(outOfIdle(from, timeline.idle), timeline.duration) : from;
  return { ...state, position, playing: true };
}

/** The last marker at or before the playhead (the one that "is playing"); -1 before the first. */
export function currentMarkerIndex(markers: Timeline['markers'], position: number, preferred: number | null = null): number {
  let index = -1;
  for (let i = 0; i < markers.length && markers[i].at_ms <= position; i++) index = i;
  // Of markers at the same moment, the one the person opened stays the current one.
  if (preferred !== null && index >= 0 && markers[preferred]?.at_ms === markers[index].at_ms) return preferred;
  return index;
}

/** The marker after the current one (markers at the same moment one by one, from `anchor`); -1 when none. */
export function nextMarkerIndex(markers: Timeline['markers'], position: number, anchor: number | null = null): number {
  const next = currentMarkerIndex(markers, position, anchor) + 1;
  return next < markers.length ? next : -1;
}

/**
 * As a player's "previous track": back to the start of the current marker when the playhead is past it, else to
 * the one before. `anchor` is the marker last gone to (by ←/→ or a click): markers at its moment count one by one,
 * and while playing, markers passed within `graceMs` of it count as not passed, so ← pressed twice goes back two
 * markers, not twice to the same one. -1 before the first.
 */
export function previousMarkerIndex(
  markers: Timeline['markers'], position: number, options: { anchor?: number | null; graceMs?: number } = {},
): number {
  const anchor = options.anchor ?? null;
  const graceMs = options.graceMs ?? 0;
  let current = currentMarkerIndex(markers, position, anchor);
  if (anchor !== null && anchor < current && position - markers[anchor].at_ms <= graceMs) current = anchor;
  if (current < 0) return -1;
  return position - markers[current].at_ms > graceMs ? current : current - 1;
}

export type Command = 'previous' | 'next' | 'toggle' | 'back' | 'forward';

/** What a key does; null for a key the replay leaves alone. */
export function commandForKey(key: string): Command | null {
  switch (key) {
    case 'ArrowLeft':
      return 'previous';
    case 'ArrowRight':
      return 'next';
    case ' ':
    case 'k':
    case 'K':
      return 'toggle';
    case 'j':
    case 'J':
      return 'back';
    case 'l':
    case 'L':
      return 'forward';
    default:
      return null;
  }
}

/** The clock after a command, and the marker it went to (previous/next), if any; `anchor`: the marker last gone to. */
export function applyCommand(
  state: ClockState, command: Command, timeline: Timeline, anchor: number | null = null,
): { state: ClockState; marker: number | null } {
  switch (command) {
    case 'toggle':
      return { state: togglePlay(state, timeline), marker: null };
    case 'back':
      return { state: seek(state, state.position - JUMP_MS, timeline), marker: null };
    case 'forward':
      return { state: seek(state, state.position + JUMP_MS, timeline), marker: null };
    case 'previous':
    case 'next': {
      const index = command === 'next'
        ? nextMarkerIndex(timeline.markers, state.position, anchor)
        : previousMarkerIndex(timeline.markers, state.position, { anchor, graceMs: state.playing ? PREVIOUS_GRACE_MS * state.speed : 0 });
      // ← before the first marker goes to the start.
      if (index < 0) return { state: command === 'previous' ? seek(state, 0, timeline) : state, marker: null };
      return { state: seek(state, timeline.markers[index].at_ms, timeline), marker: index };
    }
  }
}

/** The next speed up or down the list (for the menu's arrow keys), staying at the ends. */
export function stepSpeed(speed: Speed, direction: 1 | -1): Speed {
  const at = SPEEDS.indexOf(speed);
  return SPEEDS[Math.min(SPEEDS.length - 1, Math.max(0, at + direction))];
}

/** 'm:ss', or 'h:mm:ss' from an hour on. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
