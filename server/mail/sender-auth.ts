// Who really wrote a mail: SPF, DKIM and DMARC (mailauth) decide whether the From address is its
// domain's to use. An agent's accept-from patterns count only for an authenticated From: DMARC
// pass, or — when the domain publishes no DMARC policy — SPF or DKIM that pass for the From's own
// domain (or a parent or subdomain of it). Everything else is unverified, with the reason.
import { Resolver } from 'node:dns/promises';
import type { AuthenticateResult } from 'mailauth';
import { splitAddress } from './address.ts';

/** `dns.promises.resolve`'s shape; tests inject an in-memory zone. */
export type DnsResolver = (name: string, rrtype: string) => Promise<any>;
export type MailAuthMode = 'hold' | 'enforce' | 'off';

export type SenderVerdict = {
  /** The From address when its domain authenticated the mail, else null. */
  identity: string | null;
  /** One line for people: what passed or what did not. */
  summary: string;
};

export type Envelope = { ip: string; helo: string; mailFrom: string; from: string };

/** Short timeouts: a dead name server must not hold an SMTP session for minutes. */
export function systemResolver(): DnsResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

export async function verifySender(raw: Buffer, envelope: Envelope, resolver: DnsResolver, mta: string): Promise<SenderVerdict> {
  const from = splitAddress(envelope.from);
  if (!from) return { identity: null, summary: 'the message has no usable From address' };
  let result: AuthenticateResult;
  try {
    // Loaded with the first mail, not at start: mailauth and what it pulls in are ~10 MB of heap (issue 48).
    const { authenticate } = await import('mailauth');
    result = await authenticate(raw, {
      ip: envelope.ip, helo: envelope.helo, sender: envelope.mailFrom, mta, resolver, disableArc: true, disableBimi: true,
    });
  } catch (err) {
    return { identity: null, summary: `the checks could not run: ${(err as Error).message}` };
  }
  return judge(result, from.domain, envelope.from.trim().toLowerCase());
}

function judge(result: AuthenticateResult, domain: string, fromAddress: string): SenderVerdict {
  const spf = result.spf ? result.spf.status.result : 'none';
  const spfDomain = result.spf ? result.spf.domain?.toLowerCase() : '';
  const passedDkim = result.dkim.results.filter((r) => r.status?.result === 'pass' && r.signingDomain).map((r) => r.signingDomain!.toLowerCase());
  const dkim = passedDkim.length ? `DKIM pass (d=${passedDkim.join(', ')})` : describeDkim(result);
  const checks = `SPF ${spf}${spfDomain ? ` for ${spfDomain}` : ''}, ${dkim}`;
  if (!result.dmarc) return { identity: null, summary: `DMARC not evaluated (no single From domain); ${checks}` };
  const dmarc = result.dmarc.status.result;
  if (dmarc === 'pass') return { identity: fromAddress, summary: `DMARC pass for ${domain} (${checks})` };
  if (dmarc !== 'none') return { identity: null, summary: `DMARC ${dmarc} for ${domain}${policy(result)}; ${checks}` };
  // No policy published: SPF or DKIM must vouch for the From domain itself.
  if (spf === 'pass' && spfDomain && aligned(spfDomain, domain)) {
    return { identity: fromAddress, summary: `no DMARC policy for ${domain}; SPF pass for ${spfDomain}` };
  }
  const signer = passedDkim.find((d) => aligned(d, domain));
  if (signer) return { identity: fromAddress, summary: `no DMARC policy for ${domain}; DKIM pass (d=${signer})` };
  return { identity: null, summary: `no DMARC policy for ${domain} and nothing vouches for it: ${checks}` };
}

/** Same domain, or one inside the other (never a bare top-level label). */
function aligned(a: string, b: string): boolean {
  if (a === b) return true;
  const [inner, outer] = a.length > b.length ? [a, b] : [b, a];
  return outer.includes('.') && inner.endsWith(`.${outer}`);
}

function describeDkim(result: AuthenticateResult): string {
  const first = result.dkim.results.find((r) => r.status);
  if (!first) return 'no DKIM signature';
  return `DKIM ${first.status.result}${first.signingDomain ? ` (d=${first.signingDomain})` : ''}`;
}

function policy(result: AuthenticateResult): string {
  return result.dmarc && result.dmarc.policy ? `, policy ${result.dmarc.policy}` : '';
}
