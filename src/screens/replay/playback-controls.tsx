// The replay's buttons under the scrub bar: previous marker, play/pause, next marker, the time, the speed
// (0.5× to 8×) and "Skip idle"; a line names the keys that do the same.
import { PauseIcon, PlayIcon, NextIcon, PreviousIcon } from '../../ui/icons.tsx';
import { formatClock, SPEEDS, type ClockState, type Command, type Speed } from './playback-clock.ts';

type PlaybackControlsProps = {
  clock: ClockState;
  duration: number;
  /** Whether the run has idle stretches to skip. */
  hasIdle: boolean;
  onCommand: (command: Command) => void;
  onSpeed: (speed: Speed) => void;
  onSkipIdle: (on: boolean) => void;
};

export function PlaybackControls({ clock, duration, hasIdle, onCommand, onSpeed, onSkipIdle }: PlaybackControlsProps) {
  return (
    <div className="replay-controls" role="group" aria-label="Playback">
      <button type="button" className="icon-button" aria-label="Previous marker" title="Previous marker (←)" onClick={() => onCommand('previous')}>
        <PreviousIcon />
      </button>
      <button
        type="button"
        className="icon-button replay-play"
        aria-label={clock.playing ? 'Pause' : 'Play'}
        title={clock.playing ? 'Pause (space, K)' : 'Play (space, K)'}
        onClick={() => onCommand('toggle')}
        disabled={duration <= 0}
      >
        {clock.playing ? <PauseIcon /> : <PlayIcon />}
      </button>
      <button type="button" className="icon-button" aria-label="Next marker" title="Next marker (→)" onClick={() => onCommand('next')}>
        <NextIcon />
      </button>
      <span className="replay-time">
        <time>{formatClock(clock.position)}</time> / <time>{formatClock(duration)}</time>
      </span>
      <label className="replay-speed">
        <span>Speed</span>
        <select value={clock.speed} onChange={(e) => onSpeed(Number(e.target.value) as Speed)}>
          {SPEEDS.map((speed) => <option key={speed} value={speed}>{speed}×</option>)}
        </select>
      </label>
      <button
        type="button"
        className="button button-small replay-skip-idle"
        aria-pressed={clock.skipIdle}
        onClick={() => onSkipIdle(!clock.skipIdle)}
        disabled={!hasIdle}
        title={hasIdle ? 'Jump over stretches where nothing changed' : 'Nothing idle to skip in this run'}
      >
        Skip idle
      </button>
      <p className="replay-keys muted">
        <kbd>←</kbd> <kbd>→</kbd> markers · <kbd>Space</kbd> or <kbd>K</kbd> play · <kbd>J</kbd> <kbd>L</kbd> 10 s back, forward
      </p>
    </div>
  );
}
