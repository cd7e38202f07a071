// The replay's header: the thread and its agent, when the run started, how long it took, how it ended and
// what it cost; on a shared link, who shared it and until when; and the screen's actions beside.
import type { ReactNode } from 'react';
import type { Replay, RunOutcome } from '../../lib/replay-api.ts';
import { Link } from '../../lib/router.ts';
import { formatCost, formatDateTime } from '../../ui/trace-format.ts';
import { formatClock } from './playback-clock.ts';

export const OUTCOME_LABELS: Record<RunOutcome, string> = {
  running: 'Running',
  done: 'Done',
  stopped: 'Stopped',
  failed: 'Failed',
  paused: 'Paused',
};

/** The heading of a replay: its thread's name, as the thread list names one without. */
export const replayTitle = (replay: Pick<Replay, 'thread_name'>) => replay.thread_name || 'New chat';

type ReplayHeaderProps = {
  replay: Replay;
  /** The signed-in page has the title bar's h1 above; a shared page is its own document. */
  headingLevel: 1 | 2;
  /** Links to the agent (signed in) or names it only (shared). */
  linkAgent: boolean;
  actions: ReactNode;
};

export function ReplayHeader({ replay, headingLevel, linkAgent, actions }: ReplayHeaderProps) {
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  const agent = replay.agent_name || `Agent #${replay.agent_id}`;
  return (
    <header className="replay-header">
      <div className="replay-heading">
        <Heading className="replay-title">{replayTitle(replay)}</Heading>
        <p className="replay-meta">
          <span>{linkAgent ? <Link href={`/agent/${replay.agent_id}`}>{agent}</Link> : agent}</span>
          <span>Started {formatDateTime(replay.started_at)}</span>
          <span>Duration {formatClock(replay.duration_ms)}</span>
          <span className="replay-outcome" data-outcome={replay.outcome}>{OUTCOME_LABELS[replay.outcome] ?? replay.outcome}</span>
          <span>Cost {formatCost(replay.cost)}</span>
        </p>
        {replay.shared && (
          <p className="replay-shared">Shared by {replay.shared.by} · expires {formatDateTime(replay.shared.expires_at)}</p>
        )}
      </div>
      <div className="replay-actions">{actions}</div>
    </header>
  );
}
