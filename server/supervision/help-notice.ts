// The e-mail an agent's owner gets when a run pauses to wait for them (issue 19): queued on the thread through
// the outbound sender that delivers approved mail (SMTP_RELAY_URL, or the outbox folder), with no approval step
// since the server writes it, not the agent. Nothing is sent while the sender does not run.
import type { Db } from '../db/db.ts';
import { queueNotice } from '../mail/index.ts';
import { HELP_LINK_MINUTES } from '../push/index.ts';
import { helpContext } from './supervision.ts';
import type { NeedsHelp } from '../threads/needs-help.ts';
import type { Bus } from '../realtime/bus.ts';

export type HelpNoticeDeps = { db: Db; bus: Bus; mailDomain: string; publicUrl: string | null; port: () => number; sending: () => boolean };

/** `link`: the request's one-time link (a path, server/push/help-links.ts), which also works on a phone. */
export function helpNotifier(deps: HelpNoticeDeps): (threadId: number, help: NeedsHelp, link?: string | null) => Promise<void> {
  return async (threadId, help, link = null) => {
    if (!deps.sending()) return;
    const c = await helpContext(deps.db, threadId);
    if (!c?.email) return;
    const origin = deps.publicUrl ?? `http://localhost:${deps.port()}`;
    const why = help.reason === 'asked' ? `${c.agent_name} asks:` : `${c.agent_name} paused itself:`;
    const text = [
      `${why}\n\n${help.question}`,
      `Thread: ${c.thread_name || `#${threadId}`}`,
      `Answer in the chat: ${origin}/agent/${c.agent_id}`,
      // Issue 46: the link opens the desktop with control being taken (the screen stops the agent and asks).
      `Or take control of its desktop and hand it back: ${origin}/agent/${c.agent_id}?control=1`,
      // Issue 47: the same, once, within 30 minutes, and only for the owner; from a phone too (sign-in first if needed).
      ...(link ? [`One-time link to take control (for ${HELP_LINK_MINUTES} minutes): ${origin}${link}`] : []),
    ].join('\n\n');
    await queueNotice(deps.db, deps.bus, {
      threadId, agentId: c.agent_id, to: c.email, subject: `${c.agent_name} is waiting for you`, text, mailDomain: deps.mailDomain,
    });
  };
}
