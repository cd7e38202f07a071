// E-mail address parsing for the intake and the settings: split an envelope address into its local
// part and domain, and check an agent's e-mail prefix. Display names and quoted local parts are
// left out: SMTP envelopes carry bare addresses, and prefixes are ours to restrict.

export type Address = { local: string; domain: string };

const LOCAL = /^[^\s@<>()\[\],;:"\\]+$/;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `Local@Domain` (optionally in <…>) → lowercased parts, or null for anything else. */
export function splitAddress(raw: string): Address | null {
  const address = raw.trim().replace(/^<(.*)>$/, '$1');
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1 || address.length > 254) return null;
  const local = address.slice(0, at).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase().replace(/\.$/, '');
  if (local.length > 64 || !LOCAL.test(local) || !DOMAIN.test(domain)) return null;
  return { local, domain };
}

export const PREFIX_RULE = 'The email prefix may use letters, digits, dots, hyphens and underscores (at most 64), and must not start or end with a dot';
const PREFIX = /^(?!\.)(?!.*\.\.)[A-Za-z0-9._-]{1,64}(?<!\.)$/;

export function isValidPrefix(prefix: string): boolean {
  return PREFIX.test(prefix);
}

/** The agent a recipient is for: its prefix when the address is in our mail domain, else null. */
export function recipientPrefix(raw: string, mailDomain: string): string | null {
  const address = splitAddress(raw);
  return address && address.domain === mailDomain.toLowerCase() ? address.local : null;
}
