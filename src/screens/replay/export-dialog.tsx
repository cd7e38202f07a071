// "Download video (WebM)": makes the video (webm-export.ts) at the replay's speed and idle skipping, with a
// progress bar and Cancel, then saves it as run-<id>.webm.
import { useEffect, useRef, useState } from 'react';
import type { IdleSpan } from '../../lib/replay-api.ts';
import { Modal } from '../../ui/modal.tsx';
import type { Speed } from './playback-clock.ts';
import { saveBlob } from './save-file.ts';
import { exportWebm } from './webm-export.ts';

type ExportDialogProps = {
  runId: number;
  recording: Blob;
  speed: Speed;
  /** In the recording's time base; empty when idle stretches are kept. */
  idle: readonly IdleSpan[];
  onClose: () => void;
};

export function ExportDialog({ runId, recording, speed, idle, onClose }: ExportDialogProps) {
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const controller = new AbortController();
    exportWebm(recording, { speed, idle, signal: controller.signal, onProgress: setProgress }).then(
      (video) => {
        saveBlob(video, `run-${runId}.webm`);
        close.current();
      },
      (err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => controller.abort();
    // One export per dialog: the settings it started with are the ones it keeps.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const percent = Math.round(progress * 100);
  return (
    <Modal
      title="Download video (WebM)"
      onClose={onClose}
      footer={<button type="button" className="button" onClick={onClose} data-autofocus>{error ? 'Close' : 'Cancel'}</button>}
    >
      {error ? (
        <p className="form-error" role="alert">{error}</p>
      ) : (
        <div className="export-progress">
          <p className="muted">
            Playing the recording at {speed}×{idle.length > 0 ? ', skipping idle stretches' : ''} into a video. Keep this tab open.
          </p>
          <progress max={100} value={percent} aria-label="Video progress" />
          <p>{percent}%</p>
        </div>
      )}
    </Modal>
  );
}
