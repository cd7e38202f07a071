// Developer options (spec §2 "Agent editor modal"): the agent's system prompt, notes.md and
// instructions in three tabs, loaded together, saved together; Escape closes (the Modal does that). Below them
// the runaway guard's rules (issue 19), loaded on their own: when they cannot be loaded the texts still can.
import { useEffect, useId, useState } from 'react';
import { useEditable } from '../../../lib/use-editable.ts';
import { getGuardSettings, putGuardSettings, type AgentTextKey, type GuardSettings } from '../../../lib/api.ts';
import { detailOr } from '../../../lib/http.ts';
import { Modal } from '../../../ui/modal.tsx';
import { loadAgentTexts, saveAgentTexts, type AgentTexts } from './agent-texts.ts';
import { Tabs, type Tab } from '../../../ui/tabs.tsx';
import { NotesEditor } from './notes-editor.tsx';
import { GuardSettingsFields } from '../supervision/guard-settings.tsx';

const TABS: readonly Tab<AgentTextKey>[] = [
  { key: 'system_prompt', label: 'System Prompt' },
  { key: 'notes', label: 'notes.md' },
  { key: 'instructions', label: 'Instructions' },
];

type AgentEditorModalProps = {
  agentId: number;
  onClose: () => void;
  /** After a successful save, before the modal closes. */
  onSaved?: () => void;
};

export function AgentEditorModal({ agentId, onClose, onSaved }: AgentEditorModalProps) {
  const idBase = useId();
  const { value: texts, setValue: setTexts, error: loadError, retry } = useEditable<AgentTexts>(() => loadAgentTexts(agentId), agentId);
  const [tab, setTab] = useState<AgentTextKey>('system_prompt');
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [guard, setGuard] = useState<{ loaded: GuardSettings; value: GuardSettings } | null>(null);

  useEffect(() => {
    let live = true;
    getGuardSettings(agentId).then(
      ({ repeat_limit, cost_cap_cents, max_calls }) => {
        const loaded = { repeat_limit, cost_cap_cents, max_calls };
        if (live) setGuard({ loaded, value: loaded });
      },
      (error) => console.debug('runaway guard settings not loaded:', detailOr(error, 'no detail')),
    );
    return () => {
      live = false;
    };
  }, [agentId]);

  const save = async () => {
    if (!texts || saving) return;
    setSaving(true);
    setSaveError(null);
    try {
      const guardChanged = guard && JSON.stringify(guard.value) !== JSON.stringify(guard.loaded);
      await Promise.all([saveAgentTexts(agentId, texts), guardChanged ? putGuardSettings(agentId, guard.value) : null]);
      onSaved?.();
      onClose();
    } catch (error) {
      setSaveError(detailOr(error, 'Failed to save changes'));
      setSaving(false);
    }
  };

  const tabId = (key: AgentTextKey) => `${idBase}-tab-${key}`;
  const panelId = (key: AgentTextKey) => `${idBase}-panel-${key}`;
  const setText = (key: AgentTextKey, value: string) => setTexts((current) => current && { ...current, [key]: value });

  return (
    <Modal
      title="Developer options"
      onClose={onClose}
      size="large"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>Cancel</button>
          <button type="button" className="button button-primary" onClick={save} disabled={!texts || saving}>
            {saving ? 'Saving...' : 'Save Changes'}
          </button>
        </>
      }
    >
      {loadError !== null ? (
        <div className="editor-error" role="alert">
          <p>{loadError || 'Failed to load data'}</p>
          <button type="button" className="button" onClick={retry}>Retry</button>
        </div>
      ) : !texts ? (
        <p className="editor-loading" role="status">Loading data...</p>
      ) : (
        <div className="agent-editor">
          {saveError !== null && <p className="form-error" role="alert">{saveError}</p>}
          <Tabs tabs={TABS} active={tab} onChange={setTab} tabId={tabId} panelId={panelId} label="Agent texts" listClass="editor-tabs" tabClass="editor-tab" />
          {/* Every panel stays mounted (hidden when inactive) so each text area keeps its own undo history. */}
          {TABS.map(({ key, label }) => (
            <div key={key} className="editor-panel" role="tabpanel" id={panelId(key)} aria-labelledby={tabId(key)} hidden={key !== tab}>
              {key === 'notes' ? (
                <NotesEditor value={texts.notes} onChange={(value) => setText(key, value)} label={label} />
              ) : (
                <textarea className="editor-textarea" aria-label={label} value={texts[key]} onChange={(e) => setText(key, e.target.value)} />
              )}
            </div>
          ))}
          {guard && <GuardSettingsFields value={guard.value} onChange={(value) => setGuard({ ...guard, value })} />}
        </div>
      )}
    </Modal>
  );
}
