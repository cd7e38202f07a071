// Addresses a person can trust: outbound recipients are kept with their domain in ASCII (xn--, as
// url.domainToASCII gives it), and shown with the Unicode form beside it when the domain is an IDN,
// naming the scripts when one label mixes them (`exаmple` with a Cyrillic а looks like `example`).
import { domainToASCII, domainToUnicode } from 'node:url';
import { splitAddress } from './address.ts';

export class AddressError extends Error {}

/** `local@domain` with the domain in ASCII; throws AddressError saying why it cannot be used. */
export function asciiAddress(raw: string, smtpUtf8: boolean): string {
  const address = raw.trim().replace(/^<(.*)>$/, '$1');
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) throw new AddressError(`"${raw}" is not an email address`);
  const local = address.slice(0, at);
  const domain = domainToASCII(address.slice(at + 1).replace(/\.$/, ''));
  if (!domain) throw new AddressError(`"${raw}": its domain cannot be written in ASCII (IDNA), so it is not a domain anyone can own`);
  if (/[^\x20-\x7e]/.test(local) && !smtpUtf8) {
    throw new AddressError(`"${raw}": a local part outside ASCII needs SMTPUTF8, which this server is not set up for (MAIL_SMTPUTF8)`);
  }
  const ascii = `${local}@${domain}`;
  if (!splitAddress(ascii) || !domain.includes('.')) throw new AddressError(`"${raw}" is not an email address`);
  return ascii;
}

export type IdnView = {
  /** The address with its domain in Unicode, as a person would read it. */
  unicode: string;
  /** The scripts of a label that mixes them (['Cyrillic', 'Latin']), else null. */
  mixed_scripts: string[] | null;
};

/** For an address whose domain is an IDN (an xn-- label): its Unicode form and any mixed scripts. */
export function idnView(address: string): IdnView | null {
  const at = address.lastIndexOf('@');
  const domain = at < 0 ? '' : address.slice(at + 1);
  if (!/(^|\.)xn--/i.test(domain)) return null;
  const unicode = domainToUnicode(domain);
  if (!unicode) return null;
  let mixed: string[] | null = null;
  for (const label of unicode.split('.')) {
    const scripts = scriptsOf(label);
    if (scripts.length > 1) mixed = [...new Set([...(mixed ?? []), ...scripts])].sort();
  }
  return { unicode: `${address.slice(0, at)}@${unicode}`, mixed_scripts: mixed };
}

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Hebrew', 'Arabic', 'Devanagari', 'Thai', 'Georgian', 'Hangul', 'Hiragana', 'Katakana', 'Han'];
const PATTERNS = SCRIPTS.map((name) => [name, new RegExp(`\\p{Script=${name}}`, 'u')] as const);

function scriptsOf(label: string): string[] {
  const found = new Set<string>();
  for (const char of label) {
    if (/[\p{Script=Common}\p{Script=Inherited}]/u.test(char)) continue; // digits, hyphens, marks
    found.add(PATTERNS.find(([, re]) => re.test(char))?.[0] ?? 'Other');
  }
  // Japanese writes Han, Hiragana and Katakana together: one script for this purpose.
  if (['Hiragana', 'Katakana'].some((s) => found.has(s)) && found.delete('Han')) found.add('Hiragana');
  if (found.has('Hiragana') && found.delete('Katakana')) found.add('Hiragana');
  return [...found];
}
