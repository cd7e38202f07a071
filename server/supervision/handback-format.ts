// The words of a hand-back (issue 19): what the person did on the desktop between Take control and handing it
// back, as the one user-side message the agent's next model call gets ("While you were paused, the person …"),
// one line per action as a demonstration's summary has them (action-format.ts), with the window under a click
// where it is known, and typed text masked where a password field is likely.
import type { Action } from '../recording/action-tracker.ts';
import { describeAction } from '../recording/action-format.ts';
import { HANDBACK_PREFIX, HANDBACK_SCREEN_CAPTION } from '../models/handback-words.ts';

export { HANDBACK_PREFIX, HANDBACK_SCREEN_CAPTION };

/** An action of a take-over; `window`: the title of the window under the pointer when it began, when known. */
export type HandbackAction = Action & { window?: string };

export type HandbackInput = { durationMs: number; actions: HandbackAction[]; screen: { width: number; height: number } | null };

/** "40 s", "2 min": how the chat and the model are told how long the person had control. */
export function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.round(s / 60)} min`;
}

// Programs that ask for a password on the line after the command.
const ASKS_PASSWORD = new RegExp('^\\s*(?:sudo|su|doas|passwd|ssh|scp|sftp|mysql|psql|gpg|kinit|login|htpasswd|openssl|ssh-keygen|ssh-add|vncpasswd)\\b'
  + '|\\s-p\\s*$|(?:docker|npm|gh) login\\b');
// Window titles of sign-in and password prompts.
const SECRET_WINDOW = /password|passphrase|passwort|mot de passe|contraseña|log ?in|sign ?in|unlock|authenticat|credential|keyring|vault|otp|2fa/i;

/** Text that looks like a secret by itself: one word of 8+ characters mixing three kinds of characters (not a path, address or URL). */
export function looksSecret(text: string): boolean {
  if (text.length < 8 || /\s/.test(text) || /[/\\]/.test(text) || /^[\w.+-]+@[\w.-]+$/.test(text)) return false;
  return [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(text)).length >= 3;
}

/**
 * Which typed texts to mask: typed into a window whose title is a password prompt, typed on the line after a
 * command that asks for a password (sudo, ssh, passwd …, then Enter), or looking like a secret by itself.
 */
export function secretTyping(actions: HandbackAction[]): Set<HandbackAction> {
  const secret = new Set<HandbackAction>();
  let line = '';
  let prompted = false;
  for (const a of actions) {
    if (a.kind === 'type') {
      const text = a.text ?? '';
      if (prompted || (a.window && SECRET_WINDOW.test(a.window)) || looksSecret(text)) secret.add(a);
      if (!secret.has(a)) line += text;
    } else if (a.kind === 'key' && a.text === 'Enter') {
      prompted = !prompted && ASKS_PASSWORD.test(line);
      line = '';
    } else if (a.kind !== 'key') {
      prompted = false;
      line = '';
    }
  }
  return secret;
}

/** One action as a line: a demonstration's wording, the window under a click, masked typing. */
export function handbackLine(a: HandbackAction, masked: boolean): string {
  if (masked) return `typed a secret (${[...(a.text ?? '')].length} characters, masked here: likely a password)`;
  const line = describeAction(a);
  return a.window && (a.kind === 'click' || a.kind === 'drag' || a.kind === 'scroll') ? `${line} in the window "${a.window}"` : line;
}

/** The user-side message the model gets. */
export function formatHandback({ durationMs, actions, screen }: HandbackInput): string {
  const took = `${HANDBACK_PREFIX} took control of the desktop for ${duration(durationMs)}`;
  if (!actions.length) {
    return `${took} and did nothing on it: no clicks, typing or other input reached it. A screenshot of the desktop as they left it follows.`;
  }
  const secret = secretTyping(actions);
  const pixels = screen ? ` of the ${screen.width}x${screen.height} screen` : '';
  const lines = actions.map((a, i) => `${i + 1}. ${handbackLine(a, secret.has(a))}`);
  const n = actions.length;
  return [
    `${took} and did this (${n} action${n === 1 ? '' : 's'}, in order; coordinates in pixels${pixels}):`,
    ...lines,
    'Then they handed the desktop back to you. A screenshot of it as they left it follows; go on from there.',
  ].join('\n');
}
