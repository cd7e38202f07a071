// The title bar's playback toggle (spec §4 "Agent run state"): it switches between fast (run_all)
// and stop. Nothing flips before the server answers; the state it returns is what is shown.
import { useState } from 'react';
import { setAgentRunState } from '../../lib/api.ts';
import { normalizeError } from '../../lib/http.ts';
import type { AgentRunState } from '../../lib/types.ts';
import { FastForwardIcon } from '../../ui/icons.tsx';

type PlaybackToggleProps = {
  agentId: number;
  state: AgentRunState;
  onChange: (state: AgentRunState) => void;
};

export function PlaybackToggle({ agentId, state, onChange }: PlaybackToggleProps) {
  const [pending, setPending] = useState(false);
  const fast = state === 'run_all';

  const toggle = async () => {
    setPending(true);
    try {
      const result = await setAgentRunState(agentId, fast ? 'stop' : 'run_all');
      onChange(result.state);
    } catch (error) {
      // The spec names no message here; the toggle simply keeps the last state the server confirmed.
      console.error('Failed to set the agent run state', normalizeError(error));
    } finally {
      setPending(false);
    }
  };

  return (
    <button
      type="button"
      className="playback-toggle"
      aria-pressed={fast}
      disabled={pending}
      onClick={toggle}
      title={fast ? 'Fast playback is on: click to stop' : 'Run all scheduled threads in fast playback'}
    >
      <FastForwardIcon />
      Fast
    </button>
  );
}
