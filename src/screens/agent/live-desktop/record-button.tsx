// The record control in the corner of the live desktop: 'Record' (a demonstration: take control and show
// the agent a job while talking), then 'Stop recording' with the time so far, then the wait for the summary.
import { useEffect, useState } from 'react';
import { Spinner } from '../../../ui/spinner.tsx';
import type { RecordingPhase } from './use-recording.ts';

type RecordButtonProps = {
  phase: RecordingPhase;
  since: number | null;
  onStart: () => void;
  onStop: () => void;
};

export function RecordButton({ phase, since, onStart, onStop }: RecordButtonProps) {
  if (phase === 'stopping' || phase === 'summarizing') {
    return (
      <div className="live-record live-record-wait">
        <Spinner label="Waiting for the summary" />
        <span>Summarising the demonstration…</span>
      </div>
    );
  }
  if (phase === 'recording') {
    return (
      <button type="button" className="live-record" data-recording onClick={onStop} title="Stop recording and send the demonstration to the agent">
        <span className="live-record-dot" aria-hidden="true" />
        <span>Stop recording</span>
        <Elapsed since={since} />
      </button>
    );
  }
  return (
    <button
      type="button"
      className="live-record"
      onClick={onStart}
      disabled={phase === 'starting'}
      title="Record a demonstration: take control and show the agent how a job is done while you talk"
    >
      <span className="live-record-dot" aria-hidden="true" />
      <span>{phase === 'starting' ? 'Starting…' : 'Record'}</span>
    </button>
  );
}

function Elapsed({ since }: { since: number | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (since === null) return null;
  const s = Math.max(0, Math.floor((now - since) / 1000));
  return <time className="live-record-time">{`${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`}</time>;
}
