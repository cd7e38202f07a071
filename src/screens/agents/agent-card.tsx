// One card of the Your Agents grid: the latest screenshot (or a drawn placeholder) and the name,
// linking to the agent screen; admins get a delete button that shows on hover and keyboard focus.
import type { AgentSummary } from '../../lib/types.ts';
import { Link } from '../../lib/router.ts';
import { useScreenshot } from '../../lib/use-screenshot.ts';
import { DesktopPlaceholder, TrashIcon } from '../../ui/icons.tsx';

type AgentCardProps = {
  agent: AgentSummary;
  /** Only given to admins. */
  onDelete?: (agent: AgentSummary) => void;
  deleting?: boolean;
};

export function AgentCard({ agent, onDelete, deleting = false }: AgentCardProps) {
  const src = useScreenshot(agent.screenshot_url);
  return (
    <li className="agent-card" data-deleting={deleting || undefined}>
      <Link href={`/agent/${agent.id}`} className="agent-card-link">
        <span className="agent-card-image">
          {src ? <img src={src} alt="" loading="lazy" /> : <DesktopPlaceholder className="agent-card-placeholder" />}
        </span>
        <span className="agent-card-name">{agent.name}</span>
      </Link>
      {onDelete && (
        <button
          type="button"
          className="agent-card-delete"
          aria-label={`Delete ${agent.name}`}
          title="Delete agent"
          disabled={deleting}
          onClick={() => onDelete(agent)}
        >
          <TrashIcon />
        </button>
      )}
    </li>
  );
}
