// An in-memory DNS for the mail intake's sender checks (mailauth's injectable resolver): no test
// reaches the internet. Names not set answer ENOTFOUND, as a real resolver does.
export type Records = { TXT?: string[]; A?: string[]; AAAA?: string[]; MX?: { exchange: string; priority: number }[] };

const zone = new Map<string, Records>();

/** Sets a name's records (TXT values are split into 255-character strings like DNS does). */
export function setRecords(name: string, records: Records): void {
  zone.set(name.toLowerCase().replace(/\.$/, ''), records);
}

/** SPF that lets this machine (the tests' SMTP client) send for the domain, and nothing else. */
export function allowLocalSender(domain: string): void {
  setRecords(domain, { ...zone.get(domain), TXT: ['v=spf1 ip4:127.0.0.1 ip6:::1 -all'] });
}

export async function fakeResolve(name: string, rrtype: string): Promise<any> {
  const records = zone.get(name.toLowerCase().replace(/\.$/, ''));
  const answer = records?.[rrtype as keyof Records];
  if (!answer) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: records ? 'ENODATA' : 'ENOTFOUND' });
  if (rrtype === 'TXT') return (answer as string[]).map((txt) => txt.match(/.{1,255}/g) ?? ['']);
  return answer;
}

// The senders the older mail tests write as: their SPF lets 127.0.0.1 send, no DMARC is published.
for (const domain of ['example.test', 'example.org', 'example.net', 'eu.corp.example', 'x.test']) allowLocalSender(domain);
