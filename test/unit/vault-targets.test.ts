import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { matchOrigin, matchWindow, parseTarget, type Target } from '../../server/vault/targets.ts';

/** The targets of the given patterns, each of which must parse. */
function targets(...texts: string[]): Target[] {
  return texts.map((text) => {
    const target = parseTarget(text);
    if ('error' in target) throw new Error(`${text}: ${target.error}`);
    return target;
  });
}

/** The canonical text of a pattern, or its error. */
function canonical(text: string): string {
  const target = parseTarget(text);
  return 'error' in target ? `error: ${target.error}` : target.text;
}

const origins = suite('targets: origin patterns');

origins('valid origins come back canonical', () => {
  assert.is(canonical('https://Example.COM'), 'https://example.com');
  assert.is(canonical('https://example.com/'), 'https://example.com');
  assert.is(canonical('https://example.com:443'), 'https://example.com');
  assert.is(canonical('HTTP://example.com:80'), 'http://example.com');
  assert.is(canonical('http://127.0.0.1:8123'), 'http://127.0.0.1:8123');
  assert.is(canonical('http://localhost:3000/'), 'http://localhost:3000');
  assert.is(canonical('https://*.Example.com'), 'https://*.example.com');
  assert.is(canonical('http://[0:0::1]:8080'), 'http://[::1]:8080');
  assert.is(canonical('https://bücher.example'), 'https://xn--bcher-kva.example');
  assert.equal(parseTarget('https://a.example.com:8443'),
    { kind: 'origin', scheme: 'https', host: 'a.example.com', wildcard: false, port: 8443, text: 'https://a.example.com:8443' });
});

origins('invalid origins say what is wrong', () => {
  assert.is(canonical('example.com'), 'error: is not an http(s) origin or window: pattern');
  assert.is(canonical('ftp://example.com'), 'error: is not an http(s) origin or window: pattern');
  assert.is(canonical('https://example.com/login'), 'error: may not have a path');
  assert.is(canonical('https://example.com//'), 'error: may not have a path');
  assert.is(canonical('https://example.com?next=1'), 'error: may not have a query');
  assert.is(canonical('https://example.com#top'), 'error: may not have a fragment');
  assert.is(canonical('https://user:pw@example.com'), 'error: may not have a user name or password');
  assert.is(canonical('https://'), 'error: has no host');
  assert.is(canonical('https://example.com:0'), 'error: has an invalid port');
  assert.is(canonical('https://example.com:65536'), 'error: has an invalid port');
  assert.is(canonical('https://example.com:'), 'error: has an invalid port');
  assert.is(canonical('https://exa mple.com'), 'error: has an invalid host');
  assert.is(canonical('https://example..com'), 'error: has an invalid host');
  assert.is(canonical('https://example.com.'), 'error: has an invalid host');
  assert.is(canonical('https://[::1'), 'error: has an invalid IPv6 address');
  assert.is(canonical('https://[fe80::1%25eth0]'), 'error: has an invalid IPv6 address');
  assert.is(canonical('https://*.1.2.3'), 'error: may not put *. before an IP address');
  for (const bad of ['https://*', 'https://*example.com', 'https://a.*.example.com', 'https://*.*.example.com', 'https://ex*.com']) {
    assert.is(canonical(bad), 'error: may have * only as the whole leftmost label (https://*.example.com)', bad);
  }
});

origins('an origin matches on scheme, host and effective port exactly', () => {
  const list = targets('https://example.com', 'http://localhost:8123');
  assert.is(matchOrigin(list, 'https://example.com'), 'https://example.com');
  assert.is(matchOrigin(list, 'https://example.com:443'), 'https://example.com');
  assert.is(matchOrigin(list, 'http://example.com'), null, 'scheme');
  assert.is(matchOrigin(list, 'https://example.com:8443'), null, 'port');
  assert.is(matchOrigin(list, 'https://a.example.com'), null, 'subdomain');
  assert.is(matchOrigin(list, 'https://example.com.evil.test'), null, 'look-alike');
  assert.is(matchOrigin(list, 'http://localhost:8123'), 'http://localhost:8123');
  assert.is(matchOrigin(list, 'http://localhost'), null);
  assert.is(matchOrigin(targets('http://example.com:80'), 'http://example.com'), 'http://example.com');
});

origins('a wildcard covers subdomains at any depth, not the bare domain', () => {
  const list = targets('https://*.example.com');
  assert.is(matchOrigin(list, 'https://a.example.com'), 'https://*.example.com');
  assert.is(matchOrigin(list, 'https://a.b.example.com'), 'https://*.example.com');
  assert.is(matchOrigin(list, 'https://example.com'), null);
  assert.is(matchOrigin(list, 'https://badexample.com'), null);
  assert.is(matchOrigin(list, 'http://a.example.com'), null);
});

origins('the first matching target wins; what is not an origin matches nothing', () => {
  const list = targets('https://*.example.com', 'https://a.example.com', 'window:xterm');
  assert.is(matchOrigin(list, 'https://a.example.com'), 'https://*.example.com');
  for (const origin of ['null', '', 'example.com', 'https://a.example.com/path', 'https://u@a.example.com', 'file:///etc', 'window:xterm']) {
    assert.is(matchOrigin(list, origin), null, origin);
  }
});

origins('IDN hosts match the punycode origin a browser gives', () => {
  assert.is(matchOrigin(targets('https://bücher.example'), 'https://xn--bcher-kva.example'), 'https://xn--bcher-kva.example');
  assert.is(matchOrigin(targets('https://*.bücher.example'), 'https://shop.xn--bcher-kva.example'), 'https://*.xn--bcher-kva.example');
  assert.is(matchOrigin(targets('http://[::1]:8080'), 'http://[::1]:8080'), 'http://[::1]:8080');
});

// ---

const windows = suite('targets: window patterns');

windows('window patterns parse, the class lower-cased and the title kept as written', () => {
  assert.equal(parseTarget('window:XTerm'), { kind: 'window', windowClass: 'xterm', title: null, text: 'window:xterm' });
  assert.equal(parseTarget('window:xterm:*Sign in*'), { kind: 'window', windowClass: 'xterm', title: '*Sign in*', text: 'window:xterm:*Sign in*' });
  assert.is(canonical('window:Org.Gnome.Keyring_x 1-2:Login: admin'), 'window:org.gnome.keyring_x 1-2:Login: admin');
  assert.is(canonical('window:'), 'error: needs a window class of 1 to 100 letters, digits, spaces or ._-');
  assert.is(canonical('window:x/term'), 'error: needs a window class of 1 to 100 letters, digits, spaces or ._-');
  assert.is(canonical(`window:${'a'.repeat(101)}`), 'error: needs a window class of 1 to 100 letters, digits, spaces or ._-');
  assert.is(canonical('window:xterm:'), 'error: needs a title pattern of 1 to 200 printable characters');
  assert.is(canonical('window:xterm:a\nb'), 'error: needs a title pattern of 1 to 200 printable characters');
  assert.is(canonical(`window:xterm:${'a'.repeat(201)}`), 'error: needs a title pattern of 1 to 200 printable characters');
  assert.is(canonical(`window:xterm:${'é'.repeat(200)}`), `window:xterm:${'é'.repeat(200)}`);
});

windows('the class matches the instance or the class name, case-insensitively', () => {
  const list = targets('window:xterm', 'https://example.com');
  assert.is(matchWindow(list, { instance: 'xterm', className: 'XTerm', title: 'bash' }), 'window:xterm');
  assert.is(matchWindow(list, { instance: 'login', className: 'XTERM', title: 'bash' }), 'window:xterm');
  assert.is(matchWindow(list, { instance: 'XTerm', className: 'Other', title: 'bash' }), 'window:xterm');
  assert.is(matchWindow(list, { instance: 'urxvt', className: 'URxvt', title: 'bash' }), null);
  assert.is(matchWindow(list, { instance: 'xterm-256', className: 'xterm-256', title: 'bash' }), null);
});

windows('a title glob matches the whole title, * any run, case-sensitively', () => {
  const list = targets('window:keepass:*Sign in*', 'window:keepass:Unlock');
  const win = (title: string) => matchWindow(list, { instance: 'keepass', className: 'KeePass', title });
  assert.is(win('Sign in'), 'window:keepass:*Sign in*');
  assert.is(win('Acme – Sign in to continue'), 'window:keepass:*Sign in*');
  assert.is(win('sign in'), null, 'case');
  assert.is(win('Unlock'), 'window:keepass:Unlock');
  assert.is(win('Unlock database'), null, 'whole title');
  assert.is(win('Please Unlock'), null, 'whole title');
});

windows('regex metacharacters in a title glob are literal', () => {
  const list = targets('window:app:Price (USD) $5.00? [a-z]+ ^x|y\\d*');
  const match = (title: string) => matchWindow(list, { instance: 'app', className: 'App', title });
  assert.is(match('Price (USD) $5.00? [a-z]+ ^x|y\\d'), 'window:app:Price (USD) $5.00? [a-z]+ ^x|y\\d*');
  assert.is(match('Price (USD) $5.00? [a-z]+ ^x|y\\d and more'), 'window:app:Price (USD) $5.00? [a-z]+ ^x|y\\d*');
  assert.is(match('Price USD $5000 a ^x|y\\d'), null);
  assert.is(match('Price (USD) $5.00 [a-z]+ ^x|y\\d'), null);
});

windows('pieces of a glob match in order without overlapping, and many stars stay fast', () => {
  const list = targets('window:app:ab*ba', `window:app2:${'*a'.repeat(40)}*b`);
  assert.is(matchWindow(list, { instance: 'app', className: 'App', title: 'aba' }), null);
  assert.is(matchWindow(list, { instance: 'app', className: 'App', title: 'abba' }), 'window:app:ab*ba');
  const started = Date.now();
  assert.is(matchWindow(list, { instance: 'app2', className: 'App2', title: 'a'.repeat(5000) }), null);
  assert.ok(Date.now() - started < 500);
});

origins.run();
windows.run();
