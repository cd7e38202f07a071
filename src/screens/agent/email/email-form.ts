// The Email settings form's rules (spec §5 "Email settings"): the prefix is trimmed, accept-from is
// one pattern per line with blank lines dropped, and empty values are sent as null.
import type { EmailSettings } from '../../../lib/api.ts';

export type EmailForm = { prefix: string; patterns: string };

export function toForm(settings: EmailSettings): EmailForm {
  return { prefix: settings.email_prefix ?? '', patterns: (settings.email_accept_from_addresses ?? []).join('\n') };
}

export function fromForm(form: EmailForm): EmailSettings {
  const patterns = form.patterns.split('\n').map((line) => line.trim()).filter(Boolean);
  return { email_prefix: form.prefix.trim() || null, email_accept_from_addresses: patterns.length ? patterns : null };
}
