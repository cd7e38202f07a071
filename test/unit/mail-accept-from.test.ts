import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptsSender, isValidPattern, parsePattern } from '../../server/mail/accept-from.ts';
import { isValidPrefix, recipientPrefix, splitAddress } from '../../server/mail/address.ts';

const address = suite('mail: address parsing');

address('splits an address into a lowercased local part and domain', () => {
  assert.equal(splitAddress('Alice.Smith@Example.COM'), { local: 'alice.smith', domain: 'example.com' });
  assert.equal(splitAddress('  <bob+tag@mail.example.org>  '), { local: 'bob+tag', domain: 'mail.example.org' });
  assert.equal(splitAddress('a@localhost'), { local: 'a', domain: 'localhost' });
  assert.equal(splitAddress('weird@name@example.com'), null, 'an @ in the local part needs quoting, which we do not take');
});

address('refuses what is not an address', () => {
  for (const bad of [
    '', '@', 'alice', 'alice@', '@example.com', 'a b@example.com', 'a@exa mple.com', 'a@-bad.com', 'a@bad-.com', 'a@ex..com',
    'x'.repeat(65) + '@example.com', '"q"@example.com',
  ]) {
    assert.is(splitAddress(bad), null, bad);
  }
});

address('recipientPrefix is the local part only for our mail domain', () => {
  assert.is(recipientPrefix('Sales@Agents.Example.com', 'agents.example.com'), 'sales');
  assert.is(recipientPrefix('sales@example.com', 'agents.example.com'), null);
  assert.is(recipientPrefix('sales@evil-agents.example.com', 'agents.example.com'), null);
  assert.is(recipientPrefix('not an address', 'agents.example.com'), null);
});

address('prefixes: letters, digits, dot, hyphen, underscore; no leading, trailing or double dot', () => {
  for (const good of ['sales', 'Sales.Team', 'a-b_c', '007', 'x'.repeat(64)]) assert.ok(isValidPrefix(good), good);
  for (const bad of ['', '.sales', 'sales.', 'sa..les', 'sales@x', 'sa les', 'sales+1', 'x'.repeat(65), 'ünï']) assert.not.ok(isValidPrefix(bad), bad);
});

const patterns = suite('mail: accept-from patterns');

patterns('an exact address matches only itself, in any case', () => {
  const p = ['alice@example.com'];
  assert.ok(acceptsSender(p, 'alice@example.com'));
  assert.ok(acceptsSender(p, 'ALICE@Example.Com'));
  assert.ok(acceptsSender(['Alice@EXAMPLE.com'], 'alice@example.com'));
  assert.not.ok(acceptsSender(p, 'malice@example.com'));
  assert.not.ok(acceptsSender(p, 'alice2@example.com'));
  assert.not.ok(acceptsSender(p, 'alice@example.com.evil.org'));
  assert.not.ok(acceptsSender(p, 'alice@sub.example.com'));
});

patterns('@domain matches anyone at that domain, not its lookalikes or subdomains', () => {
  const p = ['@example.com'];
  assert.ok(acceptsSender(p, 'anyone@example.com'));
  assert.ok(acceptsSender(p, 'Someone.Else@EXAMPLE.COM'));
  assert.not.ok(acceptsSender(p, 'x@badexample.com'));
  assert.not.ok(acceptsSender(p, 'x@example.com.evil.org'));
  assert.not.ok(acceptsSender(p, 'x@sub.example.com'));
  assert.not.ok(acceptsSender(p, 'example.com@evil.org'));
});

patterns('*.domain matches any subdomain depth but not the domain itself or lookalikes', () => {
  const p = ['*.example.com'];
  assert.ok(acceptsSender(p, 'x@mail.example.com'));
  assert.ok(acceptsSender(p, 'x@a.b.EXAMPLE.com'));
  assert.not.ok(acceptsSender(p, 'x@example.com'));
  assert.not.ok(acceptsSender(p, 'x@badexample.com'));
  assert.not.ok(acceptsSender(p, 'x@mail.example.com.evil.org'));
  assert.not.ok(acceptsSender(p, 'x@mailexample.com'));
});

patterns('a prefix wildcard matches local parts starting with the prefix at exactly that domain', () => {
  const p = ['billing-*@example.com'];
  assert.ok(acceptsSender(p, 'billing-eu@example.com'));
  assert.ok(acceptsSender(p, 'BILLING-@example.com'), 'the empty rest counts');
  assert.ok(acceptsSender(p, 'billing-a.b@Example.com'));
  assert.not.ok(acceptsSender(p, 'billing@example.com'));
  assert.not.ok(acceptsSender(p, 'xbilling-eu@example.com'));
  assert.not.ok(acceptsSender(p, 'billing-eu@example.com.evil.org'));
  assert.not.ok(acceptsSender(p, 'billing-eu@notexample.com'));
  assert.not.ok(acceptsSender(p, 'billing-eu@sub.example.com'));
  assert.ok(acceptsSender(['*@example.com'], 'anyone@example.com'), 'a bare * is any local part');
});

patterns('several patterns: any one may match; none or no patterns accept nobody', () => {
  const p = ['alice@example.com', '@partner.org', '*.corp.example', 'ops-*@example.net'];
  for (const ok of ['alice@example.com', 'bob@partner.org', 'x@eu.corp.example', 'ops-1@example.net']) assert.ok(acceptsSender(p, ok), ok);
  for (const no of ['bob@example.com', 'bob@corp.example', 'dev-1@example.net']) assert.not.ok(acceptsSender(p, no), no);
  assert.not.ok(acceptsSender([], 'alice@example.com'));
  assert.not.ok(acceptsSender(null, 'alice@example.com'));
  assert.not.ok(acceptsSender(p, ''), 'the null sender of bounces');
  assert.not.ok(acceptsSender(p, 'not-an-address'));
});

patterns('the four shapes parse; anything else is refused', () => {
  assert.equal(parsePattern(' Billing-*@Example.com '), { local: 'billing-', localPrefix: true, domain: 'example.com', subdomains: false });
  assert.equal(parsePattern('*.Example.com'), { local: '', localPrefix: true, domain: 'example.com', subdomains: true });
  for (const good of ['a@example.com', '@example.com', '*.example.com', 'x-*@example.com', '*@example.com']) assert.ok(isValidPattern(good), good);
  for (const bad of [
    'example.com', '*', '*@*', 'a*b@example.com', '*x@example.com', 'a@*.example.com', '**.example.com', '*.com',
    '@localhost', 'a b@example.com', 'a@exa mple.com', '@',
  ]) {
    assert.not.ok(isValidPattern(bad), bad);
  }
  assert.not.ok(acceptsSender(['a*b@example.com'], 'axb@example.com'), 'an invalid pattern matches nothing');
});

address.run();
patterns.run();
