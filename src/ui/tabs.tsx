// A tab list following the WAI-ARIA tabs pattern (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/):
// one tab in the Tab order, arrow keys and Home/End move and select (automatic activation).
import { useRef, type KeyboardEvent } from 'react';

export type Tab<K extends string> = { key: K; label: string };

type TabsProps<K extends string> = {
  tabs: readonly Tab<K>[];
  active: K;
  onChange: (key: K) => void;
  /** Element ids of a tab and of its panel, so each can point at the other. */
  tabId: (key: K) => string;
  panelId: (key: K) => string;
  label: string;
  /** Class names of the list and of each tab (the editor and the trace modal style them apart). */
  listClass: string;
  tabClass: string;
};

export function Tabs<K extends string>({ tabs, active, onChange, tabId, panelId, label, listClass, tabClass }: TabsProps<K>) {
  const refs = useRef(new Map<K, HTMLButtonElement>());

  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex((t) => t.key === active);
    const last = tabs.length - 1;
    const next =
      event.key === 'ArrowRight' ? (index === last ? 0 : index + 1)
      : event.key === 'ArrowLeft' ? (index === 0 ? last : index - 1)
      : event.key === 'Home' ? 0
      : event.key === 'End' ? last
      : -1;
    if (next < 0) return;
    event.preventDefault();
    onChange(tabs[next].key);
    refs.current.get(tabs[next].key)?.focus();
  };

  return (
    <div className={listClass} role="tablist" aria-label={label} onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab.key}
          ref={(el) => {
            if (el) refs.current.set(tab.key, el);
            else refs.current.delete(tab.key);
          }}
          type="button"
          role="tab"
          id={tabId(tab.key)}
          className={tabClass}
          aria-selected={tab.key === active}
          aria-controls={panelId(tab.key)}
          tabIndex={tab.key === active ? 0 : -1}
          onClick={() => onChange(tab.key)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
