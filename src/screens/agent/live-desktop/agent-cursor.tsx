// The agent's cursor over the live view: it moves to where the agent's last action hit the desktop
// (action events on /api/actions/agent/{id}/ws: kind, x and y as fractions of the screen) and pulses on
// clicks. The action socket retries 5 times, 2 s apart (spec §4, §9). The server publishes only the
// agent's actions there: a person in control has the real pointer.
import { useEffect, useState } from 'react';
import { onJson, openAgentFeed } from '../../../lib/feed-socket.ts';
import { fixedDelay } from '../../../lib/socket.ts';
import { PointerIcon } from '../../../ui/icons.tsx';

export const ACTION_SOCKET_RETRIES = 5;
export const ACTION_SOCKET_DELAY_MS = 2000;

export type ActionEvent = { kind: string; x: number; y: number; source?: string };

/** The latest agent action, or null before the first one. */
export function useAgentActions(agentId: number, options: { WebSocket?: typeof WebSocket } = {}): { event: ActionEvent | null; seq: number } {
  const [state, setState] = useState<{ event: ActionEvent | null; seq: number }>({ event: null, seq: 0 });
  useEffect(() => {
    const socket = openAgentFeed('actions', agentId, {
      maxRetries: ACTION_SOCKET_RETRIES,
      retryDelay: fixedDelay(ACTION_SOCKET_DELAY_MS),
      WebSocket: options.WebSocket,
    });
    onJson(socket, 'action socket', (data) => {
      const event = data as ActionEvent;
      if (!event || typeof event.x !== 'number' || typeof event.y !== 'number') return;
      setState((s) => ({ event, seq: s.seq + 1 }));
    }, (...args) => console.debug(...args));
    return () => socket.close();
  }, [agentId, options.WebSocket]);
  return state;
}

export function AgentCursor({ event, seq }: { event: ActionEvent | null; seq: number }) {
  if (!event) return null;
  const click = /click|drag/.test(event.kind);
  return (
    <div
      className="agent-cursor"
      data-kind={event.kind}
      style={{ left: `${clamp(event.x) * 100}%`, top: `${clamp(event.y) * 100}%` }}
      aria-hidden="true"
    >
      {click && <span key={seq} className="agent-cursor-pulse" />}
      <PointerIcon />
    </div>
  );
}

const clamp = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);
