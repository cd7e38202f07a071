// The recording of a replay: its bytes fetched (with the session's token, or plainly for a share link) and played
// as they arrive, by a player disposed with the screen or when the recording is fetched again; the whole of it,
// once it arrived, is what the downloads save.
import { useEffect, useState, type RefObject } from 'react';
import { normalizeError } from '../../lib/http.ts';
import type { GrowingBlob } from '../../lib/growing-blob.ts';
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
  /** The recording as it downloads (the player starts on it), and whole once it arrived (the downloads need that). */
  const [arriving, setArriving] = useState<GrowingBlob | null>(null);
  const [blob, setBlob] = useState<Blob | null>(null);
  const [player, setPlayer] = useState<RecordingPlayer | null>(null);
  const [duration, setDuration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const sourceKey = source.kind === 'run' ? `run:${source.runId}` : `shared:${source.token}`;

  useEffect(() => {
    setArriving(null);
    setBlob(null);
    setError(null);
    if (!url) return;
    const controller = new AbortController();
    const failed = (err: unknown) => {
      if (!controller.signal.aborted) setError(`The recording could not be loaded: ${normalizeError(err).detail}`);
    };
    getRecording(source, url, controller.signal).then((recording) => {
      setArriving(recording);
      recording.finished().then(setBlob, failed);
    }, failed);
    return () => controller.abort();
    // The source is named by sourceKey (a new object each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourceKey, url, generation]);

  useEffect(() => {
    if (!arriving) return;
    setDuration(0);
    setShown(false);
    setLoaded(false);
    const made = createPlayer(arriving, {
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
  }, [arriving, createPlayer, stage]);

  const status = !url ? 'none' : error ? 'error' : shown ? 'ready' : player && loaded ? 'empty' : 'loading';
  return { status, blob, player, duration, error };
}
