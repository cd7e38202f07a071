// Recording a demonstration (spec §4 "Control mode", "Recording"): start asks for the microphone, records
// it, calls start-recording and turns control on if it is off; stop calls stop-recording, turns control
// off and uploads the audio, then waits until a message with a video_call_summary tag arrives on the
// agent's feed. An assistant message 'Recording automatically stopped' newer than the start ends the
// recording like a stop, with the alert 'Max recording limit reached'. Start and stop failures are logged
// only (spec §8); without a microphone the recording goes on without sound.
import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadAudio } from '../../../lib/audio-upload.ts';
import { normalizeError } from '../../../lib/http.ts';
import { DEFAULT_AUDIO_TYPE, recordMicrophone, type Recording } from '../../../lib/recorder.ts';
import type { ChatMessage } from '../../../lib/types.ts';
import { useMessageSocket, type MessageSocketOptions } from '../../../lib/use-message-socket.ts';
import { applyMessageEvent } from '../conversation/message-events.ts';
import { startScreenshare, stopScreenshare } from '../../../lib/desktop-api.ts';
import { readStoredRecording, storeRecording } from './recording-flag.ts';

export type RecordingPhase = 'idle' | 'starting' | 'recording' | 'stopping' | 'summarizing';

export const AUTO_STOP_TEXT = 'Recording automatically stopped';
export const MAX_LENGTH_ALERT = 'Max recording limit reached';
export const SUMMARY_TAG = 'video_call_summary';
/** While waiting for the summary the feed is also refetched this often, in case the socket missed it. */
const SUMMARY_POLL_MS = 5000;

export type RecordingOptions = {
  agentId: number;
  /** The thread selected in the chat: the summary goes there. */
  threadId: number | null;
  controlMode: boolean;
  /** The take-control flow (stops the agent, asks for control, collapses the chat). */
  takeControl: () => Promise<unknown>;
  /** Ends control mode. */
  releaseControl: () => void;
  /** @default recordMicrophone */
  record?: () => Promise<Recording>;
  /** The feed socket's environment (tests). */
  socket?: Pick<MessageSocketOptions, 'WebSocket' | 'getToken'>;
};

export type RecordingState = {
  phase: RecordingPhase;
  /** When the recording began (for the elapsed time), ms since the epoch on this machine. */
  since: number | null;
  start: () => Promise<void>;
  stop: () => Promise<void>;
};

const textOf = (m: ChatMessage) => m.assistant_data?.text ?? m.user_data?.text ?? '';
/** Newer than the start (server times); with no known start nothing counts, so old messages never do. */
const newer = (m: ChatMessage, than: string | null) => !!than && Date.parse(m.created_at) >= Date.parse(than);

export function useRecording(options: RecordingOptions): RecordingState {
  const { agentId } = options;
  const [phase, setPhaseState] = useState<RecordingPhase>(() => (readStoredRecording(agentId).recording ? 'recording' : 'idle'));
  const [since, setSince] = useState<number | null>(() => Date.parse(readStoredRecording(agentId).startedAt ?? '') || null);
  const phaseRef = useRef(phase);
  const setPhase = (next: RecordingPhase) => {
    phaseRef.current = next;
    setPhaseState(next);
  };
  const microphone = useRef<Recording | null>(null);
  const latest = useRef(options);
  latest.current = options;

  const watching = phase === 'recording' || phase === 'stopping' || phase === 'summarizing';
  const feed = useMessageSocket(watching ? agentId : 0, { ...options.socket, apply: applyMessageEvent });

  const stop = useCallback(async (auto = false) => {
    if (phaseRef.current !== 'recording') return;
    setPhase('stopping');
    const mic = microphone.current;
    microphone.current = null;
    const audio = mic ? await mic.stop() : new Blob([], { type: DEFAULT_AUDIO_TYPE });
    const stored = readStoredRecording(agentId);
    const session = await stopScreenshare(agentId, stored.sessionId).catch((error) => {
      console.error('Failed to stop screenshare', normalizeError(error));
      return null;
    });
    // After a reload only the session id may be left: the server knows when it began.
    storeRecording(agentId, { ...stored, recording: false, startedAt: stored.startedAt ?? session?.started_at ?? null });
    latest.current.releaseControl();
    setPhase('summarizing');
    if (stored.sessionId) {
      uploadAudio(stored.sessionId, audio).catch((error) => {
        console.error('Failed to upload the recording', normalizeError(error));
        if (phaseRef.current === 'summarizing') setPhase('idle'); // no summary will come
      });
    } else setPhase('idle');
    if (auto) window.alert(MAX_LENGTH_ALERT);
  }, [agentId]);

  const start = useCallback(async () => {
    if (phaseRef.current !== 'idle') return;
    setPhase('starting');
    const mic = await (latest.current.record ?? recordMicrophone)().catch((error) => {
      console.error('No microphone: recording without sound', error);
      return null;
    });
    let session;
    try {
      session = await startScreenshare(agentId, latest.current.threadId);
    } catch (error) {
      console.error('Failed to start screenshare', normalizeError(error));
      await mic?.stop();
      setPhase('idle');
      return;
    }
    microphone.current = mic;
    storeRecording(agentId, { recording: true, sessionId: session.session_id, startedAt: session.started_at });
    setSince(Date.now());
    setPhase('recording');
    // Spec §4: starting screen share enables control if it is not yet on.
    if (!latest.current.controlMode) await latest.current.takeControl();
  }, [agentId]);

  // The feed decides the automatic stop and the end of the wait.
  const messages = feed.data?.messages;
  useEffect(() => {
    if (!messages) return;
    const { startedAt } = readStoredRecording(agentId);
    if (phase === 'recording' && messages.some((m) => m.role === 'assistant' && textOf(m).includes(AUTO_STOP_TEXT) && newer(m, startedAt))) {
      void stop(true);
    }
    if (phase === 'summarizing' && messages.some((m) => textOf(m).includes(SUMMARY_TAG) && newer(m, startedAt))) setPhase('idle');
  }, [messages, phase, agentId, stop]);

  const refetch = feed.mutate;
  useEffect(() => {
    if (phase !== 'summarizing') return;
    const timer = setInterval(() => void refetch(), SUMMARY_POLL_MS);
    return () => clearInterval(timer);
  }, [phase, refetch]);

  // Leaving the page ends the microphone; the flag stays, so coming back offers Stop (without the sound).
  useEffect(() => () => void microphone.current?.stop(), []);

  return { phase, since, start, stop: useCallback(() => stop(false), [stop]) };
}
