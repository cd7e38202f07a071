// /api/agents/{id}/email-settings (admin only): the agent's e-mail prefix and accept-from patterns,
// plus its full address and the server's MAIL_DOMAIN so the modal can show them.
import type { Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { getEmailSettings, setEmailSettings, type EmailSettings } from './email-settings.ts';
import { isValidPattern } from './accept-from.ts';
import { isValidPrefix, PREFIX_RULE } from './address.ts';
import { agentIdParam } from '../agents/params.ts';
import { record } from '../audit/audit.ts';
import type { Config } from '../config/index.ts';
import type { Bus } from '../realtime/bus.ts';

type Deps = { bus: Bus; config: Pick<Config, 'mailDomain'> };

const MAX_PATTERNS = 200;

export function registerEmailSettingsRoutes(api: Api, deps: Deps) {
  api.get('/agents/:id/email-settings', async (ctx) => {
    const id = await agentIdParam(ctx);
    return present(deps, await getEmailSettings(ctx.db, id));
  }, 'admin');

  api.put('/agents/:id/email-settings', async (ctx) => {
    const id = await agentIdParam(ctx);
    const settings = parse(await ctx.body());
    const saved = await ctx.db.tx(async (q) => {
      const before = await getEmailSettings(q, id);
      const after = await setEmailSettings(q, deps.bus, id, settings);
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      if (!same(before.email_prefix, after.email_prefix)) {
        await record(q, { action: 'agent.email_prefix', target: { type: 'agent', id }, detail: { from: before.email_prefix, to: after.email_prefix } });
      }
      if (!same(before.email_accept_from_addresses, after.email_accept_from_addresses)) {
        await record(q, {
          action: 'agent.accept_from', target: { type: 'agent', id },
          detail: { from: before.email_accept_from_addresses, to: after.email_accept_from_addresses },
        });
      }
      return after;
    });
    return present(deps, saved);
  }, 'admin');
}

function present(deps: Deps, settings: EmailSettings) {
  const domain = deps.config.mailDomain;
  return { ...settings, mail_domain: domain, email_address: settings.email_prefix ? `${settings.email_prefix}@${domain}` : null };
}

/** The prefix trimmed, patterns trimmed without blank lines; empty values become null. */
export function parse(body: Record<string, unknown>): EmailSettings {
  const rawPrefix = body.email_prefix ?? null;
  if (rawPrefix !== null && typeof rawPrefix !== 'string') throw invalid('email_prefix', 'email_prefix must be text or null');
  const prefix = rawPrefix?.trim() || null;
  if (prefix !== null && !isValidPrefix(prefix)) throw invalid('email_prefix', PREFIX_RULE);

  const rawPatterns = body.email_accept_from_addresses ?? null;
  if (rawPatterns !== null && (!Array.isArray(rawPatterns) || !rawPatterns.every((p) => typeof p === 'string'))) {
    throw invalid('email_accept_from_addresses', 'email_accept_from_addresses must be a list of patterns or null');
  }
  const patterns = [...new Set((rawPatterns as string[] | null ?? []).map((p) => p.trim()).filter(Boolean))];
  if (patterns.length > MAX_PATTERNS) throw invalid('email_accept_from_addresses', `At most ${MAX_PATTERNS} patterns`);
  const bad = patterns.find((p) => !isValidPattern(p));
  if (bad !== undefined) {
    throw invalid('email_accept_from_addresses', `"${bad}" is not a pattern: use name@example.com, @example.com, *.example.com or prefix-*@example.com`);
  }
  return { email_prefix: prefix, email_accept_from_addresses: patterns.length ? patterns : null };
}
