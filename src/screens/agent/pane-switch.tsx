// The agent screen on a phone (issue 47): chat and desktop take the whole screen in turn, and this two-way
// switch says which. Shown by CSS at phone widths only (styles/agent.css); wider, both are on screen at once.
export type AgentPane = 'chat' | 'desktop';

export function PaneSwitch({ pane, onChange }: { pane: AgentPane; onChange: (pane: AgentPane) => void }) {
  return (
    <div className="pane-switch" role="group" aria-label="Show">
      <button type="button" className="pane-switch-option" aria-pressed={pane === 'chat'} onClick={() => onChange('chat')}>
        Chat
      </button>
      <button type="button" className="pane-switch-option" aria-pressed={pane === 'desktop'} onClick={() => onChange('desktop')}>
        Desktop
      </button>
    </div>
  );
}
