// Mounts the app; the theme is applied before the first render to avoid a flash.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { applyTheme, initialTheme } from './lib/theme.ts';
import '../styles/index.css';

applyTheme(initialTheme());
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
