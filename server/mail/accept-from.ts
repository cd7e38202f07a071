// Who may write to an agent: its accept-from patterns, one of
//   name@example.com   that address exactly
//   @example.com       anyone at example.com (not its subdomains)
//   *.example.com      anyone at any subdomain of example.com (not example.com itself)
//   billing-*@example.com   local parts starting with "billing-" at example.com
// Matching ignores case. Pure: no I/O, so the rules are unit-tested on their own.
import { splitAddress } from './address.ts';

type Pattern = { local: string; localPrefix: boolean; domain: string; subdomains: boolean };

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
const LOCAL = /^[^\s@<>()\[\],;:"\\*]*$/;

/** The pattern's parts, or null when it is none of the four shapes. */
export function parsePattern(raw: string): Pattern | null {
  const text = raw.trim().toLowerCase();
  if (text.startsWith('*.')) {
    const domain = text.slice(2);
    return DOMAIN.test(domain) ? { local: '', localPrefix: true, domain, subdomains: true } : null;
  }
  const at = text.lastIndexOf('@');
  if (at < 0) return null;
  let local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (!DOMAIN.test(domain)) return null;
  const localPrefix = local === '' || local.endsWith('*');
  if (local.endsWith('*')) local = local.slice(0, -1);
  if (local.length > 64 || !LOCAL.test(local)) return null;
  return { local, localPrefix, domain, subdomains: false };
}

export function isValidPattern(raw: string): boolean {
  return parsePattern(raw) !== null;
}

function matches(pattern: Pattern, local: string, domain: string): boolean {
  const domainOk = pattern.subdomains ? domain.endsWith('.' + pattern.domain) : domain === pattern.domain;
  if (!domainOk) return false;
  return pattern.localPrefix ? local.startsWith(pattern.local) : local === pattern.local;
}

/** True when the sender address matches one of the patterns; no patterns accept nobody. */
export function acceptsSender(patterns: readonly string[] | null | undefined, sender: string): boolean {
  const address = splitAddress(sender);
  if (!address || !patterns?.length) return false;
  return patterns.some((raw) => {
    const pattern = parsePattern(raw);
    return pattern !== null && matches(pattern, address.local, address.domain);
  });
}
