// A loaded replay: header, notices, the desktop playback with its scrub bar and controls, and beside it the
// markers and the open marker's detail. Positions are ms from the run's start (the markers' time base); the
// recording began recording_offset_ms into the run, so the frame shown is the one at position − offset.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Replay, ReplaySource } from '../../lib/replay-api.ts';
import { DownloadIcon, ReloadIcon, ShareIcon } from '../../ui/icons.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { ExportDialog } from './export-dialog.tsx';
import { MarkerDetail } from './marker-detail.tsx';
import { MarkerList } from './marker-list.tsx';
import { currentMarkerIndex, type Command, type Timeline } from './playback-clock.ts';
import { PlaybackControls } from './playback-controls.tsx';
import type { CreatePlayer } from './recording-player.ts';
import { ReplayHeader } from './replay-header.tsx';
import { ReplayStage } from './replay-stage.tsx';
import { saveBlob } from './save-file.ts';
import { ScrubBar } from './scrub-bar.tsx';
import { ShareDialog } from './share-dialog.tsx';
import { usePlayback, type Frames } from './use-playback.ts';
import { useReplayKeys } from './use-replay-keys.ts';
import { useReplayRecording } from './use-replay-recording.ts';
import { webmType } from './webm-export.ts';

export const NO_RECORDING = 'No desktop recording for this run.';
export const EMPTY_RECORDING = 'The recording has nothing to show yet.';
export const STILL_GOING = 'This run is still going; the replay shows it up to now.';

type ReplayViewProps = {
  source: ReplaySource;
  replay: Replay;
  /** Fetches the replay and its recording again (a run still going). */
  onReload: () => void;
  /** Bumped by onReload: the recording is fetched again. */
  generation: number;
  createPlayer: CreatePlayer;
  frames?: Frames;
};

export function ReplayView({ source, replay, onReload, generation, createPlayer, frames }: ReplayViewProps) {
  const stage = useRef<HTMLDivElement>(null);
  const recording = useReplayRecording({ source, url: replay.recording_url, generation, createPlayer, stage });
  const offset = Math.max(0, replay.recording_offset_ms || 0);
  const markers = useMemo(() => replay.markers ?? [], [replay.markers]);
  const idle = useMemo(() => replay.idle ?? [], [replay.idle]);

  const lastMarker = markers.length > 0 ? markers[markers.length - 1].at_ms : 0;
  const duration = Math.max(replay.duration_ms || 0, recording.duration > 0 ? offset + recording.duration : 0, lastMarker);
  const timeline = useMemo<Timeline>(() => ({ duration, idle, markers }), [duration, idle, markers]);
  const playback = usePlayback(timeline, frames);
  const { clock } = playback;

  const player = recording.player;
  const target = Math.max(0, clock.position - offset);
  // Every position the clock reaches goes to the player (it seeks one at a time, the newest wins).
  useEffect(() => player?.show(target), [player, target]);

  const [opened, setOpened] = useState<number | null>(null);
  const current = currentMarkerIndex(markers, clock.position, opened);
  const { seekTo, goToMarker, command: runCommand } = playback;
  const openMarker = useCallback((index: number) => {
    goToMarker(index);
    setOpened(index);
  }, [goToMarker]);
  const command = (cmd: Command) => {
    const marker = runCommand(cmd);
    // An open detail follows ← and →; with none open, the keys only move the playhead.
    if (marker !== null && opened !== null) setOpened(marker);
  };

  const [sharing, setSharing] = useState(false);
  const [exporting, setExporting] = useState(false);
  useReplayKeys(command, !sharing && !exporting);

  const canVideo = !!webmType();
  const actions = (
    <>
      {replay.can_share && (
        <button type="button" className="button button-small" onClick={() => setSharing(true)}>
          <ShareIcon /> Share
        </button>
      )}
      {replay.recording_url && (
        <>
          <button
            type="button"
            className="button button-small"
            disabled={!recording.blob}
            onClick={() => recording.blob && saveBlob(recording.blob, `run-${replay.run_id}.guac`)}
          >
            <DownloadIcon /> Download recording
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={!recording.blob || !canVideo}
            title={canVideo ? undefined : 'This browser cannot make a video of the replay'}
            onClick={() => {
              playback.pause();
              setExporting(true);
            }}
          >
            <DownloadIcon /> Download video (WebM)
          </button>
        </>
      )}
    </>
  );

  const stageMessage =
    recording.status === 'none' ? <p>{NO_RECORDING}</p>
    : recording.status === 'empty' ? <p>{EMPTY_RECORDING}</p>
    : recording.status === 'error' ? <p className="replay-stage-error" role="alert">{recording.error}</p>
    : recording.status === 'loading' ? <Spinner label="Loading recording" />
    : null;

  return (
    <div className="replay">
      <ReplayHeader replay={replay} headingLevel={source.kind === 'shared' ? 1 : 2} linkAgent={source.kind === 'run'} actions={actions} />
      {replay.ended_at === null && (
        <div className="replay-notice" role="status">
          <p>{STILL_GOING}</p>
          <button type="button" className="button button-small" onClick={onReload}>
            <ReloadIcon /> Reload
          </button>
        </div>
      )}
      {replay.recording_stopped && (
        <div className="replay-notice" data-tone="warning" role="status">
          <p>{replay.recording_stopped}</p>
        </div>
      )}
      <div className="replay-body">
        <section className="replay-main" aria-label="Playback">
          <ReplayStage player={player} state={recording.status} stageRef={stage} message={stageMessage} />
          <ScrubBar
            duration={duration}
            position={clock.position}
            markers={markers}
            idle={idle}
            current={current}
            onSeek={seekTo}
            onMarker={openMarker}
          />
          <PlaybackControls
            clock={clock}
            duration={duration}
            hasIdle={idle.length > 0}
            onCommand={command}
            onSpeed={playback.setSpeed}
            onSkipIdle={playback.setSkipIdle}
          />
        </section>
        <aside className="replay-side" aria-label="Markers of the run">
          <MarkerList markers={markers} current={current} opened={opened} onSelect={openMarker} />
          {opened !== null && <MarkerDetail key={opened} source={source} index={opened} onClose={() => setOpened(null)} />}
        </aside>
      </div>
      {sharing && source.kind === 'run' && <ShareDialog runId={source.runId} onClose={() => setSharing(false)} />}
      {exporting && recording.blob && (
        <ExportDialog
          runId={replay.run_id}
          recording={recording.blob}
          speed={clock.speed}
          idle={clock.skipIdle ? idle.map((s) => ({ from_ms: s.from_ms - offset, to_ms: s.to_ms - offset })) : []}
          onClose={() => setExporting(false)}
        />
      )}
    </div>
  );
}
