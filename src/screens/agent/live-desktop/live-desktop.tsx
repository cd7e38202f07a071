// The live VM view of the agent screen (spec §2, §4): the latest screenshot and a 'Connecting' spinner
// until the Guacamole view is connected, then the live desktop. Read-only until 'Take control' (shown on
// hover): that first stops the agent, then asks the server for control and tells the screen to collapse
// the chat; the chat's 'Expand chat' ends control mode, which hands control back. Around it: the agent
// cursor, the running and recording rings, the record button (use-recording.ts), and file drops. On a touch
// screen, touch/ turns taps and pinches into clicks and zoom, and a key bar under the view types.
import type Guacamole from 'guacamole-common-js';
import { useEffect, useRef, useState } from 'react';
import { stopAgent } from '../../../lib/api.ts';
import { normalizeError } from '../../../lib/http.ts';
import type { AgentSummary } from '../../../lib/types.ts';
import { useScreenshot } from '../../../lib/use-screenshot.ts';
import { Spinner } from '../../../ui/spinner.tsx';
import { AgentCursor, useAgentActions } from './agent-cursor.tsx';
import { isRecording, RECORDING_EVENT } from './recording-flag.ts';
import { resumeSoundOnGesture } from './desktop-sound.ts';
import { GuacamoleView } from './guacamole-view.tsx';
import { LiveSession, type ViewerState } from './live-session.ts';
import { RecordButton } from './record-button.tsx';
import { useRecording } from './use-recording.ts';
import { DesktopDropZone } from './desktop-drop.tsx';
import { KeyBar } from './touch/key-bar.tsx';

export type LiveDesktopProps = {
  agent: AgentSummary;
  /** The thread selected in the chat (a recording's summary goes there). */
  threadId?: number | null;
  /** Control mode: the user's input goes to the desktop and the chat is collapsed (spec §4). */
  controlMode: boolean;
  onControlModeChange: (control: boolean) => void;
  /** Counts Take control clicks elsewhere (the chat's help request); each new value takes control. */
  takeControlRequest?: number;
};

const SLOW_CONNECT_MS = 2500;

export function LiveDesktop({ agent, threadId = null, controlMode, onControlModeChange, takeControlRequest = 0 }: LiveDesktopProps) {
  const [state, setState] = useState<ViewerState>('IDLE');
  const [client, setClient] = useState<Guacamole.Client | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [taking, setTaking] = useState(false);
  // A connect that takes more than a moment is a desktop starting: say so beside the spinner.
  const [slow, setSlow] = useState(false);
  const latest = useRef({ controlMode, onControlModeChange });
  latest.current = { controlMode, onControlModeChange };

  const [session] = useState(
    () =>
      new LiveSession(agent.id, {
        onState: setState,
        onClient: setClient,
        onProblem: setProblem,
        onControlLost: () => latest.current.onControlModeChange(false),
        onClipboard: (text) => {
          // Only for the user in control, and only while this page has the focus (the API requires it).
          if (!latest.current.controlMode || !document.hasFocus()) return;
          navigator.clipboard?.writeText(text).catch((error) => console.debug('clipboard not written', error));
        },
      }),
  );
  useEffect(() => {
    // A page reloaded in control mode asks for control back as soon as it connects (the server's lease kept it).
    if (latest.current.controlMode) void session.control(true);
    session.start();
    return () => session.stop();
  }, [session]);
  useEffect(() => resumeSoundOnGesture(), []);

  // 'Expand chat' (or losing the connection for good) ends control mode: hand control back.
  useEffect(() => {
    if (!controlMode) session.control(false).catch((error) => console.debug('control not released', normalizeError(error)));
  }, [controlMode, session]);

  const connected = state === 'CONNECTED';
  useEffect(() => {
    setSlow(false);
    if (connected) return;
    const timer = setTimeout(() => setSlow(true), SLOW_CONNECT_MS);
    return () => clearTimeout(timer);
  }, [connected]);
  // Shown only until the live view connects; held (not fetched anew) while the live view covers it.
  const screenshot = useScreenshot(agent.screenshot_url, connected);

  const takeControl = async () => {
    setTaking(true);
    try {
      // Spec §4: taking control first stops the agent. A failed stop is logged only (spec §8).
      await stopAgent(agent.id).catch((error) => console.error('Failed to stop the agent', normalizeError(error)));
      if (await session.control(true)) onControlModeChange(true);
    } catch (error) {
      console.error('Failed to take control', normalizeError(error));
    } finally {
      setTaking(false);
    }
  };

  const takeRef = useRef(takeControl);
  takeRef.current = takeControl;
  useEffect(() => {
    if (takeControlRequest > 0 && !latest.current.controlMode) void takeRef.current();
  }, [takeControlRequest]);

  const actions = useAgentActions(agent.id);
  const recorder = useRecording({
    agentId: agent.id, threadId, controlMode, takeControl, releaseControl: () => latest.current.onControlModeChange(false),
  });
  const recording = useRecordingFlag(agent.id) || recorder.phase === 'recording';

  // The key bar's keys (a phone's), the same way the desktop's keyboard goes: only while in control.
  const sendKey = (pressed: boolean, keysym: number) => {
    if (latest.current.controlMode) client?.sendKeyEvent(pressed ? 1 : 0, keysym);
  };

  return (
    <>
      <DesktopDropZone agentId={agent.id}>
        <div
          className="vm-frame live-frame"
          data-running={agent.agent_running || undefined}
          data-recording={recording || undefined}
          data-state={state.toLowerCase()}
          data-control={controlMode || undefined}
        >
          {!connected && (screenshot ? (
            <img className="vm-screenshot" src={screenshot} alt={`Latest screenshot of ${agent.name}'s desktop`} />
          ) : (
            <p className="vm-empty">No screenshot yet</p>
          ))}
          <GuacamoleView session={session} client={client} control={controlMode && connected}>
            {!controlMode && <AgentCursor event={actions.event} seq={actions.seq} />}
          </GuacamoleView>
          {!connected && !problem && (
            <div className="live-connecting">
              <Spinner label="Connecting" />
              <span>Connecting</span>
              {agent.desktop_sleeping ? <span className="live-connecting-detail">Sleeping: waking it…</span>
                : slow && <span className="live-connecting-detail">Starting the desktop…</span>}
            </div>
          )}
          {problem && !connected && (
            <div className="live-problem" role="alert">
              <p>{problem}</p>
              <button type="button" className="button button-small" onClick={() => session.retryNow()}>Retry</button>
            </div>
          )}
          {connected && !controlMode && (
            <div className="live-take-control">
              <button type="button" className="button button-primary" onClick={takeControl} disabled={taking}>
                {taking ? 'Taking control…' : 'Take control'}
              </button>
            </div>
          )}
          {connected && controlMode && <span className="live-control-badge">You have control</span>}
          {(connected || recorder.phase !== 'idle') && (
            <RecordButton phase={recorder.phase} since={recorder.since} onStart={recorder.start} onStop={recorder.stop} />
          )}
        </div>
      </DesktopDropZone>
      {controlMode && <KeyBar sendKey={sendKey} />}
    </>
  );
}

/** The per-agent recording flag in session storage (set by screen recording), polled once a second. */
function useRecordingFlag(agentId: number): boolean {
  const [on, setOn] = useState(() => isRecording(agentId));
  useEffect(() => {
    const read = () => setOn(isRecording(agentId));
    const timer = setInterval(read, 1000);
    window.addEventListener('storage', read);
    window.addEventListener(RECORDING_EVENT, read);
    return () => {
      clearInterval(timer);
      window.removeEventListener('storage', read);
      window.removeEventListener(RECORDING_EVENT, read);
    };
  }, [agentId]);
  return on;
}
