// One card of the Your Agents grid: the latest screenshot (or a drawn placeholder), the name, whether its desktop
// sleeps and the latest message's first line, linking to the agent screen; admins get a delete button that shows
// on hover and keyboard focus.
import { agentMessagesPath, MESSAGE_PAGE_SIZE_LIST } from '../../lib/api.ts';
import type { AgentSummary, ChatMessage, MessagePage } from '../../lib/types.ts';
import { Link } from '../../lib/router.ts';
import { useResource } from '../../lib/use-resource.ts';
import { useScreenshot } from '../../lib/use-screenshot.ts';
import { DesktopPlaceholder, TrashIcon } from '../../ui/icons.tsx';

type AgentCardProps = {
  agent: AgentSummary;
  /** Only given to admins. */
  onDelete?: (agent: AgentSummary) => void;
  deleting?: boolean;
};

/** The grid refetches its list every 30 s; each card's messages follow the same beat. */
const MESSAGES_REFRESH_MS = 30_000;

/** The first non-empty line of the newest message with text (the page is newest first), or null. */
export function latestLine(messages: ChatMessage[]): string | null {
  for (const m of messages) {
    const text = m.user_data?.text ?? m.assistant_data?.text ?? '';
    const line = text.split('\n').map((l) => l.trim()).find(Boolean);
    if (line) return line;
  }
  return null;
}

export function AgentCard({ agent, onDelete, deleting = false }: AgentCardProps) {
  const src = useScreenshot(agent.screenshot_url);
  const { data } = useResource<MessagePage>(agentMessagesPath(agent.id, MESSAGE_PAGE_SIZE_LIST), { refreshInterval: MESSAGES_REFRESH_MS });
  const latest = data ? latestLine(data.messages) : null;
  return (
    <li className="agent-card" data-deleting={deleting || undefined}>
      <Link href={`/agent/${agent.id}`} className="agent-card-link">
        <span className="agent-card-image">
          {src ? <img src={src} alt="" loading="lazy" /> : <DesktopPlaceholder className="agent-card-placeholder" />}
        </span>
        <span className="agent-card-name">{agent.name}</span>
        {(agent.number_threads_needing_help ?? 0) > 0 && <span className="badge waiting-badge">Waiting for a person</span>}
        {agent.desktop_sleeping && <span className="badge sleeping-badge">Sleeping</span>}
        {latest && <span className="agent-card-latest">{latest}</span>}
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
