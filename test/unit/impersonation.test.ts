import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clearImpersonation, IMPERSONATE_KEY, impersonatedUserId, startImpersonating, stopImpersonating } from '../../src/lib/impersonation.ts';
import { agentSocketUrl } from '../../src/lib/feed-socket.ts';

const imp = suite('impersonation: the one module that owns the key');
imp.before.each(reset);

function env() {
  const reloads: number[] = [];
  return { reloads, env: { storage: localStorage, reload: () => reloads.push(1) } };
}

imp('start stores the id and reloads; stop removes it and reloads', () => {
  const { reloads, env: e } = env();
  startImpersonating(42, e);
  assert.is(localStorage.getItem(IMPERSONATE_KEY), '42');
  assert.is(impersonatedUserId(), '42');
  stopImpersonating(e);
  assert.is(impersonatedUserId(), null);
  assert.equal(reloads, [1, 1]);
});

imp('clear says whether there was one, without reloading', () => {
  assert.is(clearImpersonation(), false);
  localStorage.setItem(IMPERSONATE_KEY, '7');
  assert.is(clearImpersonation(), true);
  assert.is(impersonatedUserId(), null);
});

imp('a storage that throws (sandboxed iframe) reads as no impersonation', () => {
  assert.is(impersonatedUserId({ getItem: () => { throw new DOMException('denied', 'SecurityError'); } }), null);
});

imp('agent feed URLs carry the token and the impersonation', () => {
  assert.is(agentSocketUrl('messages', 3, 'tok'), 'ws://localhost/api/messages/agent/3/ws?token=tok');
  localStorage.setItem(IMPERSONATE_KEY, '9');
  assert.is(agentSocketUrl('actions', 3, 'tok'), 'ws://localhost/api/actions/agent/3/ws?token=tok&impersonate=9');
});

imp.run();
