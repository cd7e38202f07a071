// The agent screen's left panel around the conversation: 300-500px wide, 500px in the wide
// setting (kept in localStorage 'chatWide'), and a 50px strip in control mode (spec §2, §9).
import { useState } from 'react';
import type { Agent } from '../../lib/types.ts';
import { ArrowsIcon } from '../../ui/icons.tsx';
import { ConversationPanel } from './conversation/conversation-panel.tsx';

export const CHAT_WIDE_KEY = 'chatWide';

type ChatPanelProps = {
  agent: Agent;
  onAgentChange: () => void;
  /** Control mode: the panel shrinks to a strip; the conversation stays mounted and keeps its state. */
  collapsed?: boolean;
  /** 'Expand chat' in the strip; the live-desktop issue passes it along with control mode. */
  onExpand?: () => void;
  onThreadChange?: (threadId: number | null) => void;
  onTakeControl?: () => void;
  initialThreadId?: number | null;
};

export function ChatPanel({ agent, onAgentChange, collapsed = false, onExpand, onThreadChange, onTakeControl, initialThreadId }: ChatPanelProps) {
  const [wide, setWide] = useStoredFlag(CHAT_WIDE_KEY);
  return (
    <aside className="chat-panel" aria-label="Chat" data-wide={wide || undefined} data-collapsed={collapsed || undefined}>
      {collapsed && onExpand && (
        <button type="button" className="icon-button chat-panel-expand" onClick={onExpand} aria-label="Expand chat" title="Expand chat">
          <ArrowsIcon />
          {/* A phone has room to say it (styles/agent.css): the strip is a bar there. */}
          <span className="chat-panel-expand-text">Expand chat</span>
        </button>
      )}
      <div className="chat-panel-body" hidden={collapsed}>
        <header className="chat-panel-header">
          <span className="chat-panel-title">Chat</span>
          <button
            type="button"
            className="icon-button chat-panel-wide"
            aria-pressed={wide}
            aria-label="Wide chat"
            title={wide ? 'Narrow chat panel' : 'Wide chat panel'}
            onClick={() => setWide(!wide)}
          >
            <ArrowsIcon />
          </button>
        </header>
        <ConversationPanel
          agent={agent} onAgentChange={onAgentChange} onThreadChange={onThreadChange} onTakeControl={onTakeControl} initialThreadId={initialThreadId}
        />
      </div>
    </aside>
  );
}

/** A boolean kept in localStorage as 'true'/'false'; storage failures leave it in memory only. */
function useStoredFlag(key: string): [boolean, (value: boolean) => void] {
  const [value, setValue] = useState(() => {
    try {
      return localStorage.getItem(key) === 'true';
    } catch {
      return false; // localStorage throws SecurityError in sandboxed iframes
    }
  });
  const set = (next: boolean) => {
    setValue(next);
    try {
      localStorage.setItem(key, String(next));
    } catch {
      // Quota or sandbox: the setting still holds for this visit.
    }
  };
  return [value, set];
}
