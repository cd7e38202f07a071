// Registers happy-dom's window as the global environment (once per process: uvu loads every test file into
// one process) and exports reset() for a clean document, storage and URL between tests.

import { GlobalRegistrator } from '@happy-dom/global-registrator';
import { patchHappyDomForDomPurify } from './happy-dom-fixes.ts';

if (!GlobalRegistrator.isRegistered) GlobalRegistrator.register({ url: 'http://localhost/' });
patchHappyDomForDomPurify();

// Tells React that act() is in use, so it warns about state updates that escape it.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export function reset(): void {
  localStorage.clear();
  sessionStorage.clear();
  document.body.innerHTML = '';
  const root = document.documentElement;
  for (const name of root.getAttributeNames()) root.removeAttribute(name);
  history.replaceState(null, '', '/');
}
