// The page title bar's text and optional action, set by whichever screen is showing.
// Two contexts: screens only see the (stable) setter, so setting a title never re-renders them.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

export const DEFAULT_TITLE = 'Agent Management';
type Title = { title: string; action: ReactNode };

const ValueContext = createContext<Title>({ title: DEFAULT_TITLE, action: null });
const SetterContext = createContext<(t: Title) => void>(() => {});

export function TitleProvider({ children }: { children: ReactNode }) {
  const [value, set] = useState<Title>({ title: DEFAULT_TITLE, action: null });
  return (
    <SetterContext.Provider value={set}>
      <ValueContext.Provider value={value}>{children}</ValueContext.Provider>
    </SetterContext.Provider>
  );
}

export const useTitleValue = () => useContext(ValueContext);

/** Sets the title bar while the calling screen is mounted; the default comes back after. */
export function useTitle(title: string | null | undefined, action: ReactNode = null): void {
  const set = useContext(SetterContext);
  useEffect(() => {
    set({ title: title || DEFAULT_TITLE, action });
  }, [title, action, set]);
  useEffect(() => () => set({ title: DEFAULT_TITLE, action: null }), [set]);
  useEffect(() => {
    document.title = title ? `${title} · Agent Workspace` : 'Agent Workspace';
  }, [title]);
}
