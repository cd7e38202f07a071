// The recording of a replay: its bytes fetched as a Blob (with the session's token, or plainly for a share
// link), then a player made of them, disposed with the screen or when the recording is fetched again.
import { useEffect, useState, type RefObject } from 'react';
import { normalizeError } from '../../lib/http.ts';
import { getRecording, type ReplaySource } from '../../lib/replay-api.ts';
import type { CreatePlayer, RecordingPlayer } from './recording-player.ts';
import { markSeeking } from './replay-stage.tsx';

export type ReplayRecording = {
  /** 'none': the run has no recording; 'loading' until its first frame shows; 'empty': read, and nothing to show. */
  status: 'none' | 'loading' | 'ready' | 'empty' | 'error';
  blob: Blob | null;
  player: RecordingPlayer | null;
  /** ms of the recording parsed so far. */
  duration: number;
  error: string | null;
};

type Options = {
  source: ReplaySource;
  url: string | null;
  /** Fetches again when it changes (the Reload of a run still going). */
  generation: number;
  createPlayer: CreatePlayer;
  stage: RefObject<HTMLElement | null>;
};

export function useReplayRecording({ source, url, generation, createPlayer, stage }: Options): ReplayRecording {
  const [blob, setBlob] = useState<Blob | null>(null);
  const [player, setPlayer] = useState<RecordingPlayer | null>(null);
  const [duration, setDuration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const sourceKey = source.kind === 'run' ? `run:${source.runId}` : `shared:${source.token}`;

  useEffect(() => {
    setBlob(null);
    setError(null);
    if (!url) return;
    const controller = new AbortController();
    getRecording(source, url, controller.signal).then(setBlob, (err: unknown) => {
      if (!controller.signal.aborted) setError(`The recording could not be loaded: ${normalizeError(err).detail}`);
    });
    return () => controller.abort();
    // The source is named by sourceKey (a new object each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourceKey, url, generation]);

  useEffect(() => {
    if (!blob) return;
    setDuration(0);
    setShown(false);
    setLoaded(false);
    const made = createPlayer(blob, {
      onProgress: setDuration,
      onLoad: () => setLoaded(true),
      onError: (message) => setError(`The recording could not be read: ${message}`),
      onBusy: (busy) => {
        markSeeking(stage.current, made, busy);
        if (!busy) setShown(true);
      },
    });
    setPlayer(made);
    return () => {
      made.dispose();
      setPlayer(null);
    };
  }, [blob, createPlayer, stage]);

  const status = !url ? 'none' : error ? 'error' : shown ? 'ready' : player && loaded ? 'empty' : 'loading';
  return { status, blob, player, duration, error };
}
