// The desktop playback: the recording's display, which the player scales to fit the stage (never above 1:1, as
// the live view, so text stays sharp) whenever the stage or the recorded screen changes size. The stage says
// on itself whether a seek is under way (data-seeking) and how long the last one took (data-last-seek-ms),
// without a re-render per frame: what a test or a measurement waits for before it reads the canvas.
import { useLayoutEffect, useRef, type ReactNode, type RefObject } from 'react';
import type { RecordingPlayer } from './recording-player.ts';

type ReplayStageProps = {
  player: RecordingPlayer | null;
  /** data-state: the recording's status (use-replay-recording.ts), 'ready' once its first frame shows. */
  state: string;
  /** The stage element, for markSeeking. */
  stageRef: RefObject<HTMLDivElement | null>;
  /** Shown over the stage: loading, no recording, a recording that cannot be read. */
  message?: ReactNode;
};

export function ReplayStage({ player, state, stageRef: frame, message }: ReplayStageProps) {
  const holder = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const box = frame.current;
    const into = holder.current;
    if (!player || !box || !into) return;
    into.append(player.element);
    const fit = () => player.fit(box.clientWidth, box.clientHeight);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(fit);
    observer?.observe(box);
    fit();
    return () => {
      observer?.disconnect();
      player.element.remove();
    };
  }, [player]);

  return (
    <div ref={frame} className="replay-stage" data-state={state}>
      <div ref={holder} className="replay-display" role="img" aria-label="Desktop recording" hidden={!player} />
      {message && <div className="replay-stage-message">{message}</div>}
    </div>
  );
}

/** Marks the stage while a seek is under way and records the last seek's time, straight on the element. */
export function markSeeking(stage: HTMLElement | null, player: RecordingPlayer, busy: boolean): void {
  if (!stage) return;
  if (busy) stage.dataset.seeking = 'true';
  else {
    delete stage.dataset.seeking;
    stage.dataset.lastSeekMs = String(Math.round(player.stats.lastMs));
  }
}
