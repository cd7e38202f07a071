// One audit event as one sentence ("admin@… as ann@… approved mail #12 to bob@…"): who acted (and the admin
// behind an impersonation), what they did, and to what. Actions it does not know read "… did x.y on …".
import type { AuditEvent } from '../../lib/audit-api.ts';

const RUN_STATES: Record<string, string> = { run: 'play', run_all: 'fast', stop: 'stop' };
const TEXT_FIELDS: Record<string, string> = { system_prompt: 'system prompt', notes: 'notes', instructions: 'instructions' };

/** Who acted: the user's e-mail (as the impersonated one: "admin@… as ann@…"), an agent, or the system. */
export function actorPhrase(
  e: Pick<AuditEvent, 'actor_type' | 'actor_id' | 'actor_label' | 'impersonator_label' | 'impersonator_id' | 'actor_name'>,
): string {
  if (e.actor_type === 'system') return 'the system';
  if (e.actor_type === 'agent') return agentPhrase(e.actor_id, e.actor_name);
  const who = e.actor_label ?? `user #${e.actor_id}`;
  if (e.impersonator_id === null) return who;
  return `${e.impersonator_label ?? `user #${e.impersonator_id}`} as ${who}`;
}

/** An agent by its name, as it is called now, and its id: “Sales” (#3); only the id once it is deleted. */
const agentPhrase = (id: unknown, name: string | null | undefined) => (name ? `agent “${name}” (#${id})` : `agent #${id}`);
const dollars = (cents: unknown) => (Number(cents) === 0 ? 'no limit' : `$${(Number(cents) / 100).toFixed(2)}`);
const quoted = (text: unknown) => `“${String(text)}”`;
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sentence, without a final full stop; capitalised unless it starts with an e-mail address. */
export function auditSentence(e: AuditEvent): string {
  const who = actorPhrase(e);
  const d = e.detail ?? {};
  const id = e.target_id;
  const agent = agentPhrase(e.target_type === 'agent' ? id : d.agent_id, e.agent_name);
  const mail = `mail #${id}${d.to ? ` to ${d.to}` : ''}`;
  // A user changing their own account reads "their", anyone else's "of user #n".
  const whose = (thing: string) => (e.actor_type === 'user' && String(e.actor_id) === id ? `their ${thing}` : `the ${thing} of user #${id}`);
  const text = ((): string => {
    switch (e.action) {
      case 'auth.sign_up': return d.method === 'oidc' ? `${who} got an account at their first single sign-on` : `${who} created an account`;
      case 'auth.sign_in': return d.method === 'oidc' ? `${who} signed in with single sign-on` : `${who} signed in`;
      case 'auth.oidc_link': return `${who} linked their account to their single sign-on identity (${d.issuer})`;
      case 'auth.oidc_logout': return `${who} ended ${count(Number(d.sessions_ended ?? 0), 'session')} of user #${id} (the identity provider signed them out)`;
      case 'auth.sign_out': return `${who} signed out`;
      case 'auth.sign_in_failed':
        if (d.method === 'oidc') return `${who} refused a single sign-on${d.email ? ` as ${d.email}` : ''} (${d.refused})`;
        return `someone failed to sign in as ${d.email ?? `user #${id}`}`;
      case 'auth.lockout':
        return `sign-in as ${d.email ?? `user #${id}`} was locked after repeated failures${d.scope === 'address' ? ' (from that address)' : ''}`;
      case 'auth.password_change': return `${who} changed the password of ${d.email ?? `user #${id}`}`;
      case 'user.role_change': return `${who} made ${d.email ?? `user #${id}`} ${d.to === 'admin' ? 'an admin' : `a ${d.to}`} (was ${d.from})`;
      case 'user.update': return `${who} changed ${whose('name')} from ${quoted(d.from)} to ${quoted(d.to)}`;
      case 'impersonation.request': return `${who} made a change: ${d.method} ${d.route}`;
      case 'agent.create': return `${who} created agent ${quoted(d.name)} (#${id})`;
      case 'agent.update': return `${who} edited the ${TEXT_FIELDS[d.field] ?? d.field} of ${agent}`;
      case 'agent.run_state': return `${who} switched ${agent} from ${RUN_STATES[d.from] ?? d.from} to ${RUN_STATES[d.to] ?? d.to}`;
      case 'agent.delete': return `${who} deleted agent ${quoted(d.name)} (#${id})`;
      case 'agent.email_prefix':
        if (!d.to) return `${who} removed the e-mail prefix ${d.from} of ${agent}`;
        return `${who} set the e-mail prefix of ${agent} to ${d.to}${d.from ? ` (was ${d.from})` : ''}`;
      case 'agent.accept_from': return `${who} changed the senders ${agent} accepts to ${count((d.to ?? []).length, 'pattern')}`;
      case 'schedule.create': return `${who} created schedule #${id} (${d.to?.frequency}) for ${agent}`;
      case 'schedule.update': return `${who} changed schedule #${id} of ${agent}`;
      case 'schedule.delete': return `${who} deleted schedule #${id} of ${agent}`;
      case 'desktop.take_control': return `${who} took control of the desktop of ${agent}`;
      case 'desktop.hand_back': return `${who} handed back control of the desktop of ${agent}`;
      case 'desktop.start_refused': return `the desktop of ${agent} refused to start: ${d.reason ?? 'it could not be contained'}`;
      case 'file.upload': return `${who} uploaded ${quoted(d.name)} to ${agent}`;
      case 'mail.draft': return `${who} drafted ${mail}`;
      case 'mail.edit': return `${who} edited ${mail}`;
      case 'mail.approve': return `${who} approved ${mail}`;
      case 'mail.delete': return `${who} deleted ${mail}`;
      case 'mail.send': return `${mail} was sent`;
      case 'mail.dead': return `${mail} could not be sent and was given up after ${count(Number(d.attempts ?? 0), 'attempt')}`;
      case 'billing.spend_limit': return `${who} changed ${whose('monthly spend limit')} from ${dollars(d.from_cents)} to ${dollars(d.to_cents)}`;
      case 'billing.limit_stop': return `a run of thread #${id} was stopped by the spend limit`;
      case 'recording.start': return `${who} started recording #${id} of ${agent}`;
      case 'recording.stop': return d.auto ? `recording #${id} of ${agent} stopped at its time limit` : `${who} stopped recording #${id} of ${agent}`;
      case 'recording.summarize': return `recording #${id} of ${agent} was summarised into thread #${d.thread_id}`;
      case 'thread.delete': return `${who} deleted thread #${id} of ${agent}`;
      case 'run.help_request': return `${who} asked for help in thread #${id}`;
      case 'run.guard_pause': return `the runaway guard paused ${agent} in thread #${id} (${d.reason})`;
      case 'credential.create': return `${who} added credential ${quoted(d.name)}`;
      case 'credential.update': return `${who} changed credential ${quoted(d.name)}${Array.isArray(d.changed) ? ` (${d.changed.join(', ')})` : ''}`;
      case 'credential.delete': return `${who} deleted credential ${quoted(d.name)}`;
      case 'credential.grant':
        return `${who} granted credential ${quoted(d.name)} to ${agentPhrase(d.agent_id, null)}${d.ask_each_time ? ', asking before each use' : ''}`;
      case 'credential.revoke': return `${who} took credential ${quoted(d.name)} back from ${agentPhrase(d.agent_id, null)}`;
      case 'credential.fill': return `${agent} typed the ${d.field} of credential ${quoted(d.name)} into ${d.target} (${d.outcome})`;
      case 'credential.refuse': return `${agent} was refused the ${d.field} of credential ${quoted(d.name)}: ${d.reason}`;
      case 'credential.approval': return `${who} ${d.state} a fill of credential ${quoted(d.name)} by ${agent}`;
      case 'token.create': return `${who} made API token ${quoted(d.name)} (${d.scope}${d.expires_at ? `, until ${d.expires_at}` : ', no expiry'})`;
      case 'token.revoke': return `${who} revoked API token ${quoted(d.name)}${e.actor_id !== d.user_id ? ` of user #${d.user_id}` : ''}`;
      case 'webhook.create': return `${who} added webhook endpoint ${quoted(d.url)} (${Array.isArray(d.events) ? d.events.join(', ') : ''})`;
      case 'webhook.update': return `${who} changed webhook endpoint ${quoted(d.url)}${Array.isArray(d.changed) ? ` (${d.changed.join(', ')})` : ''}`;
      case 'webhook.delete': return `${who} deleted webhook endpoint ${quoted(d.url)}`;
      case 'push.subscribe': return `${who} allowed notifications on ${quoted(d.label)}`;
      case 'push.update': return `${who} changed the notifications of ${quoted(d.label)}`;
      case 'push.unsubscribe':
        return e.actor_type === 'system' ? `${who} removed a device whose push service (${d.endpoint_origin}) says it is gone (${d.reason})`
          : `${who} turned off notifications on ${quoted(d.label)}`;
      case 'help_link.use': return `${who} opened a help request's one-time link to ${agentPhrase(d.agent_id, null)}`;
      case 'audit.prune': return `${who} pruned ${count(Number(d.deleted ?? 0), 'audit event')} older than ${d.retention_days} days`;
      default: return `${who} did ${e.action}${e.target_type ? ` on ${e.target_type} #${id}` : ''}`;
    }
  })();
  if (e.actor_type === 'user' && text.startsWith(who)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
