// Your Agents (/): the grid of the user's agents, refetched every 30 s while the tab is visible;
// admins create agents from the title bar's more-options menu and delete them from the cards.
import { useMemo, useState } from 'react';
import { AGENTS_PATH, deleteAgent } from '../../lib/api.ts';
import { useAuth } from '../../lib/auth.tsx';
import { detailOr } from '../../lib/http.ts';
import { useTitle } from '../../lib/title.tsx';
import type { AgentSummary } from '../../lib/types.ts';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Menu } from '../../ui/menu.tsx';
import { AgentCard } from './agent-card.tsx';
import { CreateAgentModal } from './create-agent-modal.tsx';

export const AGENTS_KEY = AGENTS_PATH;
/** Spec §9 "Agent list refetch"; useResource skips ticks while the tab is hidden. */
export const AGENTS_REFRESH_MS = 30_000;

export function AgentsScreen() {
  const auth = useAuth();
  const isAdmin = useIsAdmin();
  // Spec §2: fetched only once the user is signed in and authentication has loaded.
  const key = auth.status === 'signed-in' ? AGENTS_KEY : null;
  const { data, error, mutate } = useResource<AgentSummary[]>(key, { refreshInterval: AGENTS_REFRESH_MS });
  const [creating, setCreating] = useState(false);
  const [deletingId, setDeletingId] = useState<number | null>(null);

  // Memoised: a new element on every render would push a new title-bar value every time.
  const action = useMemo(
    () => (isAdmin ? <Menu label="More options" items={[{ label: 'Create agent', onSelect: () => setCreating(true) }]} /> : null),
    [isAdmin],
  );
  useTitle(null, action);

  const remove = async (agent: AgentSummary) => {
    if (!confirm('Delete this agent?')) return;
    setDeletingId(agent.id);
    try {
      await deleteAgent(agent.id);
    } catch (err) {
      alert(detailOr(err, 'Failed to delete'));
    } finally {
      setDeletingId(null);
    }
    await mutate();
  };

  return (
    <div className="agents-screen">
      {error && (
        <p className="page-message error-text" role="alert">
          Error loading agents: {error.detail}
        </p>
      )}
      {!data && !error && <p className="page-message" role="status">Loading agents...</p>}
      {data && data.length === 0 && !error && (
        <div className="page-message">
          <p>No agents found</p>
          {/* Only admins create agents: a user who signed up alone needs to know whom to ask, and the admin what to do. */}
          <p className="muted agents-empty-hint">
            {isAdmin ? 'Create one with Create agent in the More options menu above.'
              : 'Agents are created by an administrator of this workspace: ask yours to make one for you.'}
          </p>
        </div>
      )}
      {data && data.length > 0 && (
        <ul className="agent-grid" aria-label="Agents">
          {data.map((agent) => (
            <AgentCard
              key={agent.id}
              agent={agent}
              onDelete={isAdmin ? remove : undefined}
              deleting={deletingId === agent.id}
            />
          ))}
        </ul>
      )}
      {creating && (
        <CreateAgentModal
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            void mutate();
          }}
        />
      )}
    </div>
  );
}
