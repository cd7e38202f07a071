// Mounts the app; the theme is applied before the first render to avoid a flash, and the opened
// page's screen starts loading while sign-in is checked.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadScreen } from './app.tsx';
import { applyTheme, initialTheme } from './lib/theme.ts';
import '../styles/index.css';

applyTheme(initialTheme());
preloadScreen(location.pathname);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
