// The main area of the agent screen: the agent's live desktop (src/screens/agent/live-desktop) on a
// dark backdrop, with the rings and control mode that live there.
import type { AgentSummary } from '../../lib/types.ts';
import { LiveDesktop } from './live-desktop/live-desktop.tsx';

type VmViewProps = {
  agent: AgentSummary;
  /** The thread selected in the chat. */
  threadId?: number | null;
  /** Control mode: the user's input goes to the desktop and the chat is collapsed (spec §4). */
  controlMode: boolean;
  onControlModeChange: (control: boolean) => void;
};

export function VmView({ agent, threadId = null, controlMode, onControlModeChange }: VmViewProps) {
  return (
    <section className="vm-view" aria-label="Virtual machine">
      <LiveDesktop agent={agent} threadId={threadId} controlMode={controlMode} onControlModeChange={onControlModeChange} />
      {/* Always mounted: a live region only announces changes to content it already had. */}
      <span className="visually-hidden" role="status">{agent.agent_running ? 'Agent is running' : ''}</span>
    </section>
  );
}
