// The agent screen (/agent/{id}): chat panel on the left, the VM view in the middle, room for the
// 360px traces panel (admin 'Show traces') on the right; the title bar holds the name, the playback toggle and, for
// admins, the more-options menu; everyone gets the Files button (the agent's files to download,
// files-modal.tsx). The agent is refetched every 3 s (spec §3, §9). On a phone, chat and desktop
// fill the screen in turn, chosen with a switch (pane-switch.tsx).
import { useCallback, useEffect, useMemo, useState } from 'react';
import { agentPath, stopAgent } from '../../lib/api.ts';
import { normalizeError } from '../../lib/http.ts';
import { navigate, useLocation } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import type { Agent, AgentRunState } from '../../lib/types.ts';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DownloadIcon } from '../../ui/icons.tsx';
import { Spinner } from '../../ui/spinner.tsx';
import { ChatPanel } from './chat-panel.tsx';
import { AgentEditorModal } from './editor/agent-editor-modal.tsx';
import { EmailSettingsModal } from './email/email-settings-modal.tsx';
import { FilesModal } from './files-modal.tsx';
import { MoreOptionsMenu } from './more-options-menu.tsx';
import { SchedulesModal } from './schedules/schedules-modal.tsx';
import { PaneSwitch, type AgentPane } from './pane-switch.tsx';
import { PlaybackToggle } from './playback-toggle.tsx';
import { TracesPanel } from './traces/traces-panel.tsx';
import { VmView } from './vm-view.tsx';
import { storeControl, storedControl } from './supervision/control-flag.ts';

export const AGENT_REFRESH_MS = 3000;

export function AgentScreen({ id }: { id: number }) {
  const isAdmin = useIsAdmin();
  const { data: agent, error, mutate } = useResource<Agent>(agentPath(id), { refreshInterval: AGENT_REFRESH_MS });
  const [editing, setEditing] = useState(false);
  const [emailSettings, setEmailSettings] = useState(false);
  const [schedules, setSchedules] = useState(false);
  const [showFiles, setShowFiles] = useState(false);
  // Control mode ('Take control' in the VM view): the user's input goes to the desktop and the chat
  // collapses to its strip; 'Expand chat' ends it.
  // Kept per agent in session storage: a reload in control mode stays in it (issue 19). A help e-mail's link
  // (`?control=1`, issue 46) opens the screen the same way: control is asked for as soon as the desktop connects.
  const { path, search } = useLocation();
  const fromLink = new URLSearchParams(search).get('control') === '1';
  // A webhook's link to a thread (`?thread=<id>`) selects it; kept once the address is tidied up.
  const [linkedThread] = useState(() => Number(new URLSearchParams(search).get('thread')) || null);
  const [controlMode, setControlMode] = useState(() => storedControl(id) || fromLink);
  // On a phone one of chat and desktop fills the screen: the desktop while in control, else what was chosen.
  const [pane, setPane] = useState<AgentPane>(() => (storedControl(id) || fromLink ? 'desktop' : 'chat'));
  // Take control asked for from the chat (a thread waiting for a person): the live desktop does it.
  const [takeControlRequest, setTakeControlRequest] = useState(0);
  // 'Show traces' (admins): the panel follows the thread selected in the chat.
  const [showTraces, setShowTraces] = useState(false);
  const [threadId, setThreadId] = useState<number | null>(null);

  const refresh = useCallback(() => void mutate(), [mutate]);
  // The server's answer is what shows, at once: it replaces the cached agent without waiting for the next poll.
  const onRunState = useCallback(
    (state: AgentRunState) => void mutate((current) => ({ ...current!, target_run_state: state })),
    [mutate],
  );

  // Taking control stopped the agent: show its new run state now rather than at the next poll.
  const changeControlMode = useCallback((control: boolean) => {
    setControlMode(control);
    storeControl(id, control);
    // Handing back is 'Expand chat': a phone then shows the chat.
    setPane(control ? 'desktop' : 'chat');
    if (control) refresh();
  }, [refresh, id]);

  useEffect(() => {
    if (!fromLink) return;
    storeControl(id, true);
    // Spec §4: taking control first stops the agent. A failed stop is logged only (spec §8).
    stopAgent(id).catch((error) => console.error('Failed to stop the agent', normalizeError(error)));
    navigate(path, { replace: true }); // a reload later is no second request
  }, [fromLink, id, path]);
  useEffect(() => {
    if (linkedThread && !fromLink) navigate(path, { replace: true });
  }, [linkedThread, fromLink, path]);

  const runState = agent?.target_run_state;
  const action = useMemo(
    () =>
      runState === undefined ? null : (
        <>
          <button type="button" className="playback-toggle" onClick={() => setShowFiles(true)} title="The agent's uploads and the files its desktop saved">
            <DownloadIcon aria-hidden="true" />
            Files
          </button>
          <PlaybackToggle agentId={id} state={runState} onChange={onRunState} />
          {isAdmin && (
            <MoreOptionsMenu
              onDeveloperOptions={() => setEditing(true)}
              onShowTraces={() => setShowTraces(true)}
              onSchedules={() => setSchedules(true)}
              onEmailSettings={() => setEmailSettings(true)}
            />
          )}
        </>
      ),
    [id, runState, isAdmin, onRunState],
  );
  useTitle(agent?.name, action);

  // A failed poll keeps the agent on screen; only a missing agent or a failed first load replaces it.
  if (error && (!agent || error.status_code === 404)) {
    return (
      <p className="page-message error-text" role="alert">
        {error.status_code === 404 ? 'Agent not found' : `Error loading agent: ${error.detail}`}
      </p>
    );
  }
  if (!agent) return <div className="page-message"><Spinner label="Loading agent" /></div>;

  return (
    <div className="agent-screen" data-control={controlMode || undefined} data-pane={pane}>
      <PaneSwitch pane={pane} onChange={setPane} />
      <ChatPanel
        agent={agent}
        onAgentChange={refresh}
        collapsed={controlMode}
        onExpand={() => changeControlMode(false)}
        onThreadChange={setThreadId}
        onTakeControl={() => setTakeControlRequest((n) => n + 1)}
        initialThreadId={linkedThread}
      />
      <VmView
        agent={agent}
        threadId={threadId}
        controlMode={controlMode}
        onControlModeChange={changeControlMode}
        takeControlRequest={takeControlRequest}
      />
      {isAdmin && showTraces && <TracesPanel threadId={threadId} onClose={() => setShowTraces(false)} />}
      {editing && <AgentEditorModal agentId={id} onClose={() => setEditing(false)} onSaved={refresh} />}
      {schedules && <SchedulesModal agentId={id} onClose={() => setSchedules(false)} />}
      {showFiles && <FilesModal agentId={id} onClose={() => setShowFiles(false)} />}
      {emailSettings && <EmailSettingsModal agentId={id} onClose={() => setEmailSettings(false)} onSaved={refresh} />}
    </div>
  );
}
