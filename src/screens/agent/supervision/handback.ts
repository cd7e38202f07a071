// A hand-back step (issue 19) as the chat shows it: the server writes the person's take-over as the user-side
// text 'While you were paused, the person took control of the desktop for 2 min and did this (14 actions …):'
// followed by one numbered line per action (server/supervision/handback-format.ts). Null for any other text.
export type Handback = { title: string; lines: string[] };

const HEAD = /^While you were paused, the person took control of the desktop for (.+?) and (?:did this \((\d+) actions?[^\n]*|did nothing on it[^\n]*)/;

export function parseHandback(text: string): Handback | null {
  const m = HEAD.exec(text);
  if (!m) return null;
  const count = Number(m[2] ?? 0);
  const lines = text.split('\n').slice(1).filter((l) => /^\d+\. /.test(l));
  return { title: `You took over for ${m[1]}: ${count} action${count === 1 ? '' : 's'}`, lines };
}

/** What the chat says of a pause: who paused it and why. */
export function pauseTitle(reason: string): string {
  return reason === 'asked' ? 'The agent asks for your help' : 'Paused by the runaway guard';
}
