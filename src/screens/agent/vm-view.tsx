// The main area of the agent screen: the agent's live desktop (src/screens/agent/live-desktop) on a
// dark backdrop, with the rings and control mode that live there.
import { LiveDesktop, type LiveDesktopProps } from './live-desktop/live-desktop.tsx';

export function VmView(props: LiveDesktopProps) {
  const { agent } = props;
  return (
    <section className="vm-view" aria-label="Virtual machine">
      <LiveDesktop {...props} />
      {/* Always mounted: a live region only announces changes to content it already had. */}
      <span className="visually-hidden" role="status">{agent.agent_running ? 'Agent is running' : ''}</span>
    </section>
  );
}
