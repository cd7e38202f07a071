// One card of the Your Agents grid: the latest screenshot (or a drawn placeholder) and the name,
// linking to the agent screen; admins get a delete button that shows on hover and keyboard focus.
import type { AgentSummary } from '../../lib/types.ts';
import { Link } from '../../lib/router.ts';
import { useScreenshot } from '../../lib/use-screenshot.ts';

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
          {src ? <img src={src} alt="" loading="lazy" /> : <DesktopPlaceholder />}
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

/** A neutral stand-in for an agent without a screenshot yet: an empty desktop window. */
function DesktopPlaceholder() {
  return (
    <svg className="agent-card-placeholder" viewBox="0 0 64 40" aria-hidden="true" focusable="false">
      <rect x="6" y="4" width="52" height="32" rx="3" />
      <path d="M6 10h52" />
      <circle cx="10.5" cy="7" r="1" />
      <circle cx="14" cy="7" r="1" />
      <circle cx="17.5" cy="7" r="1" />
      <path d="M14 18h16M14 23h24M14 28h12" />
    </svg>
  );
}

function TrashIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8}
      strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M3 6h18" />
      <path d="M8 6V4h8v2" />
      <path d="M19 6l-1 14H6L5 6" />
      <path d="M10 11v6M14 11v6" />
    </svg>
  );
}
